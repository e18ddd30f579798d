package pg

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Reserve sends two statements in one round trip: the first checks that
// worker is live and holds a share lock on its row until commit, so the
// leader cannot declare it dead while its reservation is in flight; the
// second reserves, repeating the liveness check so that it reserves nothing
// for a dead worker.
func (t *tx) Reserve(ctx context.Context, worker ulid.ULID, queues []string, limit int) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	t.s.queueLive(b, t.nowArg(), worker)
	reserving := limit > 0 && len(queues) > 0
	if reserving {
		t.s.queueReserveRows(b, t.nowArg(), worker, queues, limit)
	}
	br := t.db.SendBatch(ctx, b)
	_, live, err := readLive(br)
	var jobs []store.Job
	if err == nil && reserving {
		jobs, err = readReserved(br, limit)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, t.fail(err, "reserve for worker %s", worker)
	}
	if !live {
		return nil, fmt.Errorf("reserve for worker %s: no live worker: %w", worker, store.ErrNotFound)
	}
	return jobs, nil
}

// queueLive adds a statement that reads the store time and whether worker
// is live, share-locking its row until commit so that no leader declares it
// dead meanwhile.
func (s *Store) queueLive(b *pgx.Batch, now pgtype.Timestamptz, worker ulid.ULID) {
	b.Queue(s.sql(`SELECT coalesce($1::timestamptz, now()),
		EXISTS (`+liveWorkerRow+` FOR SHARE)`), now, idArg(worker))
}

// readLive reads queueLive's answer.
func readLive(br pgx.BatchResults) (now time.Time, live bool, err error) {
	err = br.QueryRow().Scan(&now, &live)
	return store.Truncate(now), live, err
}

// queueReserveRows adds the reservation, planned with index scans only (see
// queueIndexScansOnly). Callers queue it only when limit and queues allow
// one: PostgreSQL rejects LIMIT with a negative count.
func (s *Store) queueReserveRows(b *pgx.Batch, now pgtype.Timestamptz, worker ulid.ULID, queues []string, limit int) {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	b.Queue(s.sql(lockQueuesSQL), s.queueKey, queues)
	queueIndexScansOnly(b, s.sql(reserveStatement()), now, idArg(worker), queues, limit)
}

// lockQueuesSQL takes the advisory lock of each queue of $2 (see
// queues.go), in the order of their keys so that two reservations never
// wait for each other in a cycle: exclusive for a queue that has a limit,
// so that its reservations count its running rows one after another, and
// shared for the others, which do not wait for each other at all. It
// records in tickwork.limited_queues the queues it locked exclusively:
// reserveSQL takes nothing from a queue whose limit it sees without
// holding that lock (the limit was set after this statement read the
// queues table).
const lockQueuesSQL = `
	SELECT set_config('tickwork.limited_queues',
		coalesce(array_agg(l.queue) FILTER (WHERE l.limited AND l.locked), '{}')::text, true),
		bool_and(l.locked)
	FROM (SELECT queue FROM unnest($2::text[]) AS queue ORDER BY hashtext(queue), queue) AS q
	CROSS JOIN LATERAL (
		SELECT q.queue, m.limited, CASE
			WHEN m.limited THEN (SELECT true FROM pg_advisory_xact_lock($1, hashtext(q.queue)))
			ELSE (SELECT true FROM pg_advisory_xact_lock_shared($1, hashtext(q.queue))) END AS locked
		FROM (SELECT EXISTS (SELECT FROM {schema}.queues AS c
			WHERE c.name = q.queue AND c.max_running IS NOT NULL) AS limited) AS m) AS l`

// readReserved reads the reserved rows.
func readReserved(br pgx.BatchResults, limit int) ([]store.Job, error) {
	if _, err := br.Exec(); err != nil { // lockQueuesSQL
		return nil, err
	}
	var jobs []store.Job
	err := readIndexScansOnly(br, func() error {
		rows, err := br.Query()
		if err == nil {
			jobs, err = collectJobs(rows, limit)
		}
		return err
	})
	return jobs, err
}

// reserveSQL picks, for each queue that is not paused, its first
// available rows in reservation order (priority, scheduled_at, id) that no
// other transaction holds (SKIP LOCKED), at most the room its limit leaves,
// keeps the limit first of them all and marks those running. A row whose
// scheduled_at is after the transaction's now waits: with database time,
// now() is when the reserving transaction began, and a row inserted or
// promoted by a transaction that began later may already be visible;
// starting it would stamp started_at before its scheduled_at (found by the
// live chaos run). The per-queue scans walk jobs_available_idx in its
// order; rows a scan locked but the merge dropped stay locked until
// commit, at most (queues − 1) × limit of them, which other workers skip
// meanwhile.
//
// With the planner limited to index scans, reading jobs_available_idx in
// its order under the LIMIT costs no more than any other plan whatever the
// statistics say, so it is the plan: about limit entries per queue, with a
// backlog of a million rows as with ten. A queue's row is read by primary
// key; its running rows are counted only when it has a limit, by walking
// jobs_running_idx: every running row of every queue, as many as the
// workers run at once, whatever the backlog or the history.
//
// The queue is matched with >= and <= rather than = on purpose: with an
// equality the planner treats ORDER BY queue, priority, … as ORDER BY
// priority, …, and with statistics that still count finished rows as
// available (a queue table changes faster than ANALYZE runs) it may then
// prefer another path past every finished row. With a range, only the
// partial index yields that order.
const reserveSQL = `
	WITH picked AS MATERIALIZED (
		SELECT c.id, c.priority, c.scheduled_at FROM unnest($3::text[]) AS q(queue)
		CROSS JOIN LATERAL (SELECT coalesce((
			SELECT CASE
				WHEN ctl.paused_at IS NOT NULL THEN 0
				WHEN ctl.max_running IS NULL THEN $4
				WHEN NOT ctl.name = ANY (current_setting('tickwork.limited_queues')::text[]) THEN 0
				ELSE greatest(0, ctl.max_running - (SELECT count(*) FROM {schema}.jobs AS r
					WHERE r.status = 'running' AND r.queue = q.queue)) END
			FROM {schema}.queues AS ctl WHERE ctl.name = q.queue), $4) AS room) AS r
		CROSS JOIN LATERAL (
			SELECT id, priority, scheduled_at FROM {schema}.jobs
			WHERE status = 'available' AND queue >= q.queue AND queue <= q.queue
			  AND scheduled_at <= coalesce($1::timestamptz, now())
			  AND ` + workerLive + `
			ORDER BY queue, priority, scheduled_at, id LIMIT least($4, r.room)
			FOR UPDATE SKIP LOCKED) AS c
		ORDER BY c.priority, c.scheduled_at, c.id LIMIT $4),
	reserved AS (
		UPDATE {schema}.jobs SET status = 'running', started_at = coalesce($1::timestamptz, now()), started_by = $2
		WHERE id = ANY (ARRAY(SELECT id FROM picked))
		RETURNING ` + jobColumns + `)
	SELECT ` + jobColumns + ` FROM reserved ORDER BY id`

// startedByIs3 matches rows started by worker $3. A row whose worker was
// deleted (started_by NULL) belongs to no worker, the zero id included.
const startedByIs3 = `started_by = $3`

// RunningJobs lists the rows running under worker; a row whose worker was
// deleted (started_by NULL) is nobody's. Its statement reads the worker's
// range of jobs_running_idx, planned with index scans only: a bitmap scan
// would read an entry for every job the worker ran since the last vacuum.
func (t *tx) RunningJobs(ctx context.Context, worker ulid.ULID) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var jobs []store.Job
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err == nil {
			jobs, err = collectJobs(rows, 0)
		}
		return err
	}, t.s.sql(runningJobsSQL), idArg(worker))
	if err != nil {
		return nil, t.fail(err, "list running jobs of worker %s", worker)
	}
	return jobs, nil
}

// runningJobsSQL is RunningJobs's statement for worker $1.
const runningJobsSQL = `SELECT ` + jobColumns + ` FROM {schema}.jobs
	WHERE started_by = $1 AND status = 'running' ORDER BY id`

// CompleteJobs completes in one statement the rows still running under
// worker; the others are fenced. Fencing is decided on the rows as they
// were: an id given twice is completed once and fenced neither time.
func (t *tx) CompleteJobs(ctx context.Context, c store.Completion) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := c.ValidateOutputs(); err != nil {
		return nil, err
	}
	if len(c.IDs) == 0 {
		return nil, nil
	}
	sql, args := completeStatement(c, t.nowArg())
	rows, err := t.db.Query(ctx, t.s.sql(completeUnchecked(sql)), args...)
	var fenced []ulid.ULID
	if err == nil {
		fenced, err = readFenced(rows, c.IDs)
	}
	if err != nil {
		return nil, t.fail(err, "complete %d jobs of worker %s", len(c.IDs), c.Worker)
	}
	return fenced, nil
}

// completeStatement returns the statement completing c and its arguments:
// completeSQL, or completeOutputSQL when a job has an output.
func completeStatement(c store.Completion, now pgtype.Timestamptz) (string, []any) {
	if !slices.ContainsFunc(c.Outputs, func(o json.RawMessage) bool { return o != nil }) {
		return completeSQL, []any{now, idArgs(c.IDs), idArg(c.Worker)}
	}
	// An id given twice keeps its first output: UPDATE … FROM would pick
	// one of its rows at random.
	seen := make(map[ulid.ULID]bool, len(c.IDs))
	var ids []pgtype.UUID
	var outputs []pgtype.Text
	for i, id := range c.IDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		out := c.Output(i)
		ids = append(ids, idArg(id))
		outputs = append(outputs, pgtype.Text{String: string(out), Valid: out != nil})
	}
	return completeOutputSQL, []any{now, ids, idArg(c.Worker), outputs}
}

// completeSQL is CompleteJobs's statement: $1 now, $2 the ids, $3 the
// worker. It returns the ids it completed.
//
// The status is matched with >= and <= rather than = so that the planner
// cannot use jobs_running_idx, whose predicate an equality would imply: it
// then ANDs a bitmap of that whole index with the ids' primary-key bitmap,
// and bitmap scans never mark the entries of finished rows dead, so until a
// vacuum every completion reads an entry for every job the table ever ran
// (seen with autovacuum off: 40,000 entries read to complete 100 jobs).
const completeSQL = `
	UPDATE {schema}.jobs SET status = 'completed', completed_at = coalesce($1::timestamptz, now())
	WHERE id = ANY($2::uuid[]) AND status >= 'running' AND status <= 'running' AND ` + startedByIs3 + `
	RETURNING id`

// completeOutputSQL is completeSQL with $4 the outputs, one per id of $2
// (which holds each id once).
const completeOutputSQL = `
	UPDATE {schema}.jobs SET status = 'completed', completed_at = coalesce($1::timestamptz, now()), output = o.output::json
	FROM unnest($2::uuid[], $4::text[]) AS o(done_id, output)
	WHERE id = o.done_id AND status >= 'running' AND status <= 'running' AND ` + startedByIs3 + `
	RETURNING id`

// readFenced reads completeSQL's rows and returns the ids among ids that it
// did not complete, in the order given.
func readFenced(rows pgx.Rows, ids []ulid.ULID) ([]ulid.ULID, error) {
	var id pgtype.UUID
	done := make(map[ulid.ULID]bool, len(ids))
	_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		done[toULID(id)] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	var fenced []ulid.ULID
	for _, id := range ids {
		if !done[id] {
			fenced = append(fenced, id)
		}
	}
	return fenced, nil
}

func (t *tx) FailJob(ctx context.Context, worker, id ulid.ULID, reason string) error {
	if err := t.check(); err != nil {
		return err
	}
	tag, err := t.db.Exec(ctx, t.s.sql(failSQL), t.nowArg(), idArg(id), idArg(worker), store.CleanReason(reason))
	if err != nil {
		return t.fail(err, "fail job %s of worker %s", id, worker)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("fail job %s of worker %s: %w", id, worker, store.ErrFenced)
	}
	return nil
}

// failSQL is FailJob's statement: $1 now, $2 the job, $3 the worker, $4 the
// reason. The status is matched as in completeSQL, so that the row is
// found by its id and never through jobs_running_idx (with fresh
// statistics the planner took that index's range of the worker, which
// holds an entry for every job the worker ran since the last vacuum).
const failSQL = `
	UPDATE {schema}.jobs SET status = 'failed', failed_at = coalesce($1::timestamptz, now()), failed_reason = $4
	WHERE id = $2 AND status >= 'running' AND status <= 'running' AND ` + startedByIs3
