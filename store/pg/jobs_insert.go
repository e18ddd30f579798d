package pg

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// copyThreshold is the batch size above which InsertJobs uses COPY. Below
// it one INSERT, which also sends the notifications, costs fewer round
// trips than COPY's extra statements.
const copyThreshold = 64

// emptyMetadata is what a job without metadata stores.
var emptyMetadata = []byte("{}")

// InsertJobs validates every job before writing anything, then inserts them
// under a savepoint: a duplicate id (ErrConflict) undoes the whole batch
// and leaves the transaction usable, as in store/mem. A batch with unique
// keys takes insertUnique's path whatever its size: COPY cannot skip a
// duplicate.
func (t *tx) InsertJobs(ctx context.Context, jobs []store.NewJob) ([]store.Duplicate, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	unique := false
	for _, j := range jobs {
		if err := store.ValidateNewJob(j); err != nil {
			return nil, fmt.Errorf("insert jobs: %w", err)
		}
		unique = unique || j.UniqueKey != ""
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	batched := rules.HasBatch(jobs)
	if batched {
		if err := rules.CheckBatches(jobs); err != nil {
			return nil, fmt.Errorf("insert jobs: %w", err)
		}
	}
	parents := hasParents(jobs)
	if parents {
		t.s.dependents.Store(true)
		if err := t.checkParents(ctx, jobs); err != nil {
			return nil, err
		}
	}
	if t.s.hints.below(jobs) {
		t.madeAvailable()
	}
	var dups []store.Duplicate
	var err error
	sequenced := slices.ContainsFunc(jobs, func(j store.NewJob) bool { return j.SequenceKey != "" })
	if sequenced {
		err = t.lockSequences(ctx, jobs)
	}
	switch {
	case err != nil:
	case unique:
		dups, err = t.insertUnique(ctx, jobs)
	case len(jobs) > copyThreshold && !sequenced: // COPY cannot number a sequence's jobs
		err = t.copyUnderSavepoint(ctx, jobs)
	default:
		err = t.insertUnderSavepoint(ctx, jobs)
	}
	if err == nil && parents {
		err = t.waitForParents(ctx, jobs, dups)
	}
	if err == nil && batched {
		err = t.makeBatches(ctx, jobs)
	}
	if err != nil {
		return nil, t.fail(err, "insert %d jobs (first %s)", len(jobs), jobs[0].ID)
	}
	return dups, nil
}

// copyUnderSavepoint runs copyJobs under a savepoint of pgx's.
func (t *tx) copyUnderSavepoint(ctx context.Context, jobs []store.NewJob) error {
	sp, err := t.db.Begin(ctx)
	if err != nil {
		return err
	}
	if err := t.copyJobs(ctx, sp, jobs); err != nil {
		_ = sp.Rollback(ctx)
		return err
	}
	return sp.Commit(ctx)
}

// insertSavepoint names the savepoint of insertUnderSavepoint; pgx names
// its own sp_1, sp_2...
const insertSavepoint = "tickwork_insert"

// insertUnderSavepoint inserts a batch without unique keys under
// underSavepoint.
func (t *tx) insertUnderSavepoint(ctx context.Context, jobs []store.NewJob) error {
	return t.underSavepoint(ctx, func(b *pgx.Batch) { t.queueInsert(b, jobs) }, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err == nil {
			_, err = countRows(rows)
		}
		return err
	})
}

// underSavepoint sends the savepoint, the statements queue adds and the
// savepoint's release in one round trip, where a savepoint of pgx's costs
// one each (a single enqueue took three); read reads the statements'
// results. If a statement fails, PostgreSQL skips the release and a second
// round trip rolls back to the savepoint. A failure must therefore be the
// server's: read must not refuse a result the server accepted.
func (t *tx) underSavepoint(ctx context.Context, queue func(*pgx.Batch), read func(pgx.BatchResults) error) error {
	b := &pgx.Batch{}
	b.Queue("SAVEPOINT " + insertSavepoint)
	queue(b)
	b.Queue("RELEASE SAVEPOINT " + insertSavepoint)
	br := t.db.SendBatch(ctx, b)
	_, err := br.Exec()
	taken := err == nil
	if err == nil {
		err = read(br)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil && taken {
		// One simple query: until the rollback, the aborted transaction
		// refuses to prepare anything else.
		undo := "ROLLBACK TO SAVEPOINT " + insertSavepoint + "; RELEASE SAVEPOINT " + insertSavepoint
		if _, uerr := t.db.Exec(ctx, undo, pgx.QueryExecModeSimpleProtocol); uerr != nil {
			return fmt.Errorf("%w (and rolling back to the savepoint: %w)", err, uerr)
		}
	}
	return err
}

// queueInsert adds the insert of a small batch without unique keys: one
// statement that decides each row's status from the store's now and
// notifies each queue that got an available row, in queue order.
func (t *tx) queueInsert(b *pgx.Batch, jobs []store.NewJob) {
	b.Queue(t.s.sql(`
		WITH now AS (SELECT coalesce($1::timestamptz, now()) AS now),
		ins AS (`+insertSelect+`
			RETURNING queue, status)
		SELECT pg_notify($15, q.queue) IS NULL
		FROM (SELECT DISTINCT queue FROM ins WHERE status = 'available') AS q ORDER BY q.queue`),
		append(t.insertArgs(jobs, nil), t.s.chAvailable)...)
}

// insertSelect inserts the rows of insertArgs ($1 now, $2-$7 the columns,
// $8 and $9 the stored unique keys and covered statuses, $10 the
// priorities, $11 the max attempts, 0 for none, $12 the partition keys,
// "" for none, $13 the sequence keys, "" for none, and $14 whether each
// continues on failure), in batch order. It numbers each sequence's jobs
// after the key's last place (sequencePlace).
const insertSelect = `
	INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, schedule_name,
	                           unique_key, unique_states, priority, max_attempts, partition_key,
	                           sequence_key, sequence_pos, sequence_continues)
	SELECT i.id, i.queue, i.payload::json, i.metadata::json,
	       CASE WHEN i.at IS NULL OR i.at <= now.now THEN 'available' ELSE 'scheduled' END,
	       0, now.now, coalesce(i.at, now.now), nullif(i.schedule, ''), nullif(i.ukey, ''), nullif(i.ustates, 0),
	       i.priority, nullif(i.max_attempts, 0), nullif(i.pkey, ''),
	       nullif(i.skey, ''), ` + sequencePlace + `, i.continues
	FROM now, unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[],
	                 $8::text[], $9::int2[], $10::int2[], $11::int4[], $12::text[], $13::text[], $14::bool[])
	     WITH ORDINALITY AS i(id, queue, payload, metadata, at, schedule, ukey, ustates, priority, max_attempts, pkey, skey,
	                          continues, ord)
	ORDER BY i.ord`

// insertArgs returns the arguments $1 to $14 of insertSelect. keys are the
// stored unique keys (nil: none).
func (t *tx) insertArgs(jobs []store.NewJob, keys []string) []any {
	n := len(jobs)
	ids := make([]pgtype.UUID, n)
	queues, payloads, metadata, names := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	scheduled := make([]pgtype.Timestamptz, n)
	states, priorities := make([]int16, n), make([]int16, n)
	maxAttempts := make([]int32, n)
	partitionKeys, sequenceKeys, continues := make([]string, n), make([]string, n), make([]bool, n)
	for i, j := range jobs {
		partitionKeys[i], sequenceKeys[i], continues[i] = j.PartitionKey, j.SequenceKey, j.SequenceContinues
		priorities[i], maxAttempts[i] = int16(j.Priority), int32(j.MaxAttempts)
		ids[i], queues[i], payloads[i], names[i] = idArg(j.ID), j.Queue, string(j.Payload), j.ScheduleName
		metadata[i] = string(metadataOf(j))
		scheduled[i] = timeArg(j.ScheduledAt)
		states[i] = int16(j.CoveredStatuses())
	}
	if keys == nil {
		keys = make([]string, n)
	}
	return []any{t.nowArg(), ids, queues, payloads, metadata, scheduled, names, keys, states, priorities, maxAttempts, partitionKeys,
		sequenceKeys, continues}
}

// copyJobs inserts a large batch with COPY, which cannot compute values:
// each row's status is decided here from the store's now, read first. Rows
// go in id order: ULIDs made in the same millisecond are in random order,
// and appending to the primary key's btree in order costs far less than
// inserting all over it.
func (t *tx) copyJobs(ctx context.Context, db pgx.Tx, jobs []store.NewJob) error {
	now, err := t.Now(ctx)
	if err != nil {
		return err
	}
	order := idOrder(jobs)
	columns := copyColumns
	attempts := slices.ContainsFunc(jobs, func(j store.NewJob) bool { return j.MaxAttempts > 0 })
	keyed := slices.ContainsFunc(jobs, func(j store.NewJob) bool { return j.PartitionKey != "" })
	if attempts { // only then: the column costs every row
		columns = append(slices.Clip(columns), "max_attempts")
	}
	if keyed { // the same
		columns = append(slices.Clip(columns), "partition_key")
	}
	var available []string           // one per row: notifyAvailable drops repeats
	row := make([]any, len(columns)) // CopyFrom encodes each row before asking for the next
	src := pgx.CopyFromSlice(len(jobs), func(i int) ([]any, error) {
		j := &jobs[order[i]]
		at, status := placement(j.ScheduledAt, now)
		if status == store.Available {
			available = append(available, j.Queue)
		}
		var schedule pgtype.Text
		if j.ScheduleName != "" {
			schedule = pgtype.Text{String: j.ScheduleName, Valid: true}
		}
		row[0], row[1], row[2], row[3], row[4] = idArg(j.ID), j.Queue, []byte(j.Payload), metadataOf(*j), string(status)
		row[5], row[6], row[7], row[8], row[9] = int32(0), now, at, schedule, int16(j.Priority)
		extra := row[len(copyColumns):]
		if attempts {
			extra[0], extra = pgtype.Int4{Int32: int32(j.MaxAttempts), Valid: j.MaxAttempts > 0}, extra[1:]
		}
		if keyed {
			extra[0] = pgtype.Text{String: j.PartitionKey, Valid: j.PartitionKey != ""}
		}
		return row, nil
	})
	_, err = db.CopyFrom(ctx, pgx.Identifier{t.s.schema, "jobs"}, columns, src)
	if err != nil {
		return err
	}
	return t.notifyAvailable(ctx, db, available)
}

// copyColumns are the columns copyJobs writes, max_attempts and
// partition_key aside.
var copyColumns = []string{"id", "queue", "payload", "metadata", "status", "attempt", "created_at", "scheduled_at", "schedule_name", "priority"}

// idOrder returns the indexes of jobs in id order. It sorts small keys (a
// ULID as two big-endian halves) rather than the jobs themselves, and not
// at all when they are in order already.
func idOrder(jobs []store.NewJob) []int {
	type key struct {
		hi, lo uint64
		i      int
	}
	keys := make([]key, len(jobs))
	sorted := true
	for i, j := range jobs {
		keys[i] = key{binary.BigEndian.Uint64(j.ID[:8]), binary.BigEndian.Uint64(j.ID[8:]), i}
		sorted = sorted && (i == 0 || keys[i-1].hi < keys[i].hi || keys[i-1].hi == keys[i].hi && keys[i-1].lo <= keys[i].lo)
	}
	if !sorted {
		slices.SortFunc(keys, func(a, b key) int {
			if c := cmp.Compare(a.hi, b.hi); c != 0 {
				return c
			}
			return cmp.Compare(a.lo, b.lo)
		})
	}
	order := make([]int, len(keys))
	for n, k := range keys {
		order[n] = k.i
	}
	return order
}

// placement returns where a new job starts: at the given time (now if
// none), available when that is not after now.
func placement(at, now time.Time) (time.Time, store.Status) {
	if at.IsZero() {
		return now, store.Available
	}
	at = rules.Truncate(at)
	if at.After(now) {
		return at, store.Scheduled
	}
	return at, store.Available
}

func metadataOf(j store.NewJob) []byte {
	if j.Metadata == nil {
		return emptyMetadata
	}
	return j.Metadata
}

// notifyAvailable sends one notification per distinct queue, in queue
// order; they are delivered when the transaction commits.
func (t *tx) notifyAvailable(ctx context.Context, db pgx.Tx, queues []string) error {
	if len(queues) == 0 {
		return nil
	}
	slices.Sort(queues)
	queues = slices.Compact(queues)
	rows, err := db.Query(ctx, `SELECT pg_notify($1, q) IS NULL FROM unnest($2::text[]) WITH ORDINALITY AS u(q, ord) ORDER BY ord`,
		t.s.chAvailable, queues)
	if err != nil {
		return err
	}
	_, err = countRows(rows)
	return err
}
