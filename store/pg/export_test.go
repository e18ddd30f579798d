package pg

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/oklog/ulid/v2"
)

// Hooks for the external tests.

// MigrateKey is the advisory lock key Migrate holds.
func MigrateKey(s *Store) int64 { return s.migrateKey }

// DutyKey is the advisory lock key LockLeaderDuties takes.
func DutyKey(s *Store) int64 { return s.dutyKey }

// MigrateFiles applies the NNNN_name.sql files of fsys (under migrations/)
// as if they were the embedded ones.
func MigrateFiles(ctx context.Context, s *Store, fsys fs.FS) (MigrateResult, error) {
	list, err := loadMigrations(fsys)
	if err != nil {
		return MigrateResult{}, err
	}
	return s.migrate(ctx, list)
}

// TablesCreated lists the tables of each embedded migration.
func TablesCreated() [][]string {
	var out [][]string
	for _, m := range migrations() {
		out = append(out, m.tables)
	}
	return out
}

// TablesDropped lists the tables each embedded migration drops that an
// earlier one created.
func TablesDropped() [][]string {
	var out [][]string
	for _, m := range migrations() {
		out = append(out, m.dropped)
	}
	return out
}

// LoadMigrations checks the naming of the files of fsys.
func LoadMigrations(fsys fs.FS) (int, error) {
	list, err := loadMigrations(fsys)
	return len(list), err
}

// EmbeddedMigrations is the embedded migration directory.
var EmbeddedMigrations fs.FS = migrationFiles

// ReserveSQL is the reserving statement with the store's schema.
func ReserveSQL(s *Store) string { return s.sql(reserveSQL) }

// PlainReserveSQL is the reserving statement for queues without a limit or
// a rate, with the store's schema.
func PlainReserveSQL(s *Store) string { return s.sql(plainReserveSQL) }

// KeyedReserveSQL is the reserving statement while a queue has a per-key
// limit, with the store's schema.
func KeyedReserveSQL(s *Store) string { return s.sql(keyedReserveSQL) }

// SequencedPlainReserveSQL is the reserving statement of queues without
// controls while the store knows of sequences, with the store's schema.
func SequencedPlainReserveSQL(s *Store) string { return s.sql(sequencedVariant(plainReserveSQL)) }

// LimitLockSQL is the statement deciding, before it, whether a limited
// queue's reservation reuses places or counts them under the limit lock.
func LimitLockSQL(s *Store) string { return s.sql(limitLockSQL) }

// MarkOverrunSQL is set-limit's statement counting a queue's running rows.
func MarkOverrunSQL(s *Store) string { return s.sql(markOverrunSQL) }

// CompleteRecordingSQL is the completing statement of a job pass that
// reserves for controlled queues, with the store's schema.
func CompleteRecordingSQL(s *Store) string { return s.sql(completeRecordingSQL) }

// CompleteSQL is the completing statement with the store's schema.
func CompleteSQL(s *Store) string { return s.sql(completeSQL) }

// CancelledSQL is the job pass's cancel check with the store's schema.
func CancelledSQL(s *Store) string { return s.sql(cancelledSQL) }

// WriteLease runs the statement TryAcquireLease sends after its SELECT
// (take, or renew when renew is set) on its own, as a worker paused between
// the two would, and returns how many rows it wrote.
func WriteLease(ctx context.Context, s *Store, worker ulid.ULID, ttl time.Duration, renew bool) (int64, error) {
	query := takeLeaseSQL
	if renew {
		query = renewLeaseSQL
	}
	tag, err := s.pool.Exec(ctx, s.sql(query), nil, idArg(worker), durationArg(ttl))
	return tag.RowsAffected(), err
}

// IndexScansOnlySQL is the statement sent before the statements that must
// be planned with index scans only.
const IndexScansOnlySQL = indexScansOnlySQL

// RestorePlannerSQL is the statement sent after them.
const RestorePlannerSQL = restorePlannerSQL

// FindLostSQL, MarkLostSQL and DeleteOldWorkersSQL are statements of
// leader duties with the store's schema.
func FindLostSQL(s *Store) string         { return s.sql(findLostSQL) }
func MarkLostSQL(s *Store) string         { return s.sql(markLostSQL) }
func DeleteOldWorkersSQL(s *Store) string { return s.sql(deleteOldWorkersSQL) }

// PromoteSQL is PromoteScheduledJobs's statement with the store's schema.
func PromoteSQL(s *Store) string { return s.sql(promoteSQL) }

// DeleteFactsSQL and DeleteJobSQL are DeleteJob's statements with the
// store's schema.
func DeleteFactsSQL(s *Store) string { return s.sql(deleteFactsSQL) }
func DeleteJobSQL(s *Store) string   { return s.sql(deleteJobSQL) }

// CancelJobsSQL is CancelJobsFrom's statement with the store's schema.
func CancelJobsSQL(s *Store) string { return s.sql(cancelJobsSQL) }

// DeleteOldJobsSQL is DeleteOldJobs's statement with the store's schema.
func DeleteOldJobsSQL(s *Store) string { return s.sql(deleteOldJobsSQL) }

// RunningJobsSQL is RunningJobs's statement with the store's schema.
func RunningJobsSQL(s *Store) string { return s.sql(runningJobsSQL) }

// FailSQL, LockRetriedSQL, InsertNextSQL, LockSnoozedSQL, SnoozeSQL and
// CheckAdvanceSQL are statements of the job path and of schedules with the
// store's schema.
func FailSQL(s *Store) string         { return s.sql(failSQL) }
func LockRetriedSQL(s *Store) string  { return s.sql(lockRetriedSQL) }
func InsertNextSQL(s *Store) string   { return s.sql(insertNextSQL) }
func LockSnoozedSQL(s *Store) string  { return s.sql(lockSnoozedSQL) }
func SnoozeSQL(s *Store) string       { return s.sql(snoozeSQL) }
func CheckAdvanceSQL(s *Store) string { return s.sql(checkAdvanceSQL) }

// SQL fills in the store's schema in query.
func SQL(s *Store, query string) string { return s.sql(query) }

// FullScanEvery is how often a reservation ignores the hints.
const FullScanEvery = fullScanEvery

// FromStartSQL are, as SQL literals, a reservation's hint arguments ($5,
// $6, $7) for one queue with no hint: it reads the queue from its start.
const FromStartSQL = "'{-1}', '{-infinity}', '{00000000-0000-0000-0000-000000000000}'"

// HintArgs returns, as SQL literals, the hint arguments ($5, $6, $7) a
// reservation of queue would start after now, without counting it as one.
func HintArgs(s *Store, queue string) string {
	s.hints.mu.Lock()
	defer s.hints.mu.Unlock()
	k, ok := s.hints.from[queue]
	if !ok {
		return FromStartSQL
	}
	return fmt.Sprintf("'{%d}', '{%q}', '{%s}'", k.priority, k.scheduledAt.Format(time.RFC3339Nano), idArg(k.id).String())
}

// ChildrenSQL, EndedParentsSQL and WriteSettledSQL are the statements of
// dependencies.go, for the plan tests.
func ChildrenSQL(s *Store) string     { return s.sql(childrenSQL) }
func EndedParentsSQL(s *Store) string { return s.sql(endedParentsSQL) }
func WriteSettledSQL(s *Store) string { return s.sql(writeSettledSQL) }

// CountMembersSQL, LockBatchesSQL, WriteBatchSQL, ReleaseCallbacksSQL and
// MakeBatchesSQL are the statements of batch.go, for the plan tests.
func CountMembersSQL(s *Store) string     { return s.sql(countMembersSQL) }
func LockBatchesSQL(s *Store) string      { return s.sql(lockBatchesSQL) }
func WriteBatchSQL(s *Store) string       { return s.sql(writeBatchSQL) }
func ReleaseCallbacksSQL(s *Store) string { return s.sql(releaseCallbacksSQL) }
func MakeBatchesSQL(s *Store) string      { return s.sql(makeBatchesSQL) }

// Classify is the store's classify: the sentinel it wraps err with.
func Classify(s *Store, err error) error { return s.classify(err) }

// DeadLetterSQL is DeadLetterJob's statement, for the plan tests.
func DeadLetterSQL(s *Store) string { return s.sql(deadLetterSQL) }

// CompleteBeforeHistorySQL is completeSQL as it was before queues without
// history (69d3e4c^1) and before the release of waiting jobs moved into
// release_children (migration 0025), for measuring what each costs.
func CompleteBeforeHistorySQL(s *Store) string {
	return s.sql(`WITH done AS (
	UPDATE {schema}.jobs SET status = 'completed', completed_at = coalesce($1::timestamptz, now())
	WHERE id = ANY($2::uuid[]) AND status >= 'running' AND status <= 'running' AND ` + startedByIs3 + `
	RETURNING id, awaited),
	freed AS (DELETE FROM {schema}.job_waits WHERE parent = ANY (ARRAY(SELECT id FROM done WHERE awaited)) RETURNING child),
	released AS (
		UPDATE {schema}.jobs AS c SET
			parents = nullif(ARRAY(SELECT p FROM unnest(c.parents) WITH ORDINALITY AS u(p, n)
				WHERE p <> ALL (ARRAY(SELECT id FROM done)) ORDER BY n), '{}'),
			status = CASE WHEN NOT c.parents <@ ARRAY(SELECT id FROM done) THEN 'waiting'
				WHEN c.scheduled_at > coalesce($1::timestamptz, now()) THEN 'scheduled' ELSE 'available' END
		WHERE c.id = ANY (ARRAY(SELECT child FROM freed)) AND c.status = 'waiting'
		RETURNING c.queue, c.status),
	notified AS MATERIALIZED (
		SELECT pg_notify({available}, q.queue) IS NULL FROM (SELECT DISTINCT queue FROM released WHERE status = 'available') AS q
		ORDER BY q.queue)
	SELECT id FROM done WHERE (SELECT count(*) FROM notified) >= 0`)
}

// CompleteKeepingSQL is the job pass's completing statement for a store
// whose queues all keep history.
func CompleteKeepingSQL(s *Store) string { return s.sql(completeKeepingSQL) }
