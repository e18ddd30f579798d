package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// ScheduleRetry implements store.Tx: the batch of one job.
func (t *tx) ScheduleRetry(ctx context.Context, id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	jobs, errs, err := t.retryJobs(ctx, []ulid.ULID{id}, []ulid.ULID{newID}, delay)
	if err != nil {
		return store.Job{}, err
	}
	return jobs[0], errs[0]
}

// RetryJobs implements store.Tx.
func (t *tx) RetryJobs(ctx context.Context, ids, newIDs []ulid.ULID, delay time.Duration) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("retry jobs", len(ids), len(newIDs)); err != nil {
		return nil, err
	}
	_, errs, err := t.retryJobs(ctx, ids, newIDs, delay)
	return errs, err
}

// retryJobs locks the rows of ids and reads, with each, the row holding
// its unique key, and which of newIDs exist; it decides on each id in
// turn as ScheduleRetry after ScheduleRetry would (retryBatch), then
// inserts the next attempts of those allowed in one statement
// (insertNext). It returns each new row, and each refusal.
func (t *tx) retryJobs(ctx context.Context, ids, newIDs []ulid.ULID, delay time.Duration) ([]store.Job, []error, error) {
	b, err := t.readRetryFacts(ctx, ids, newIDs)
	if err != nil {
		return nil, nil, err
	}
	status := rules.NextStatus(delay)
	errs := make([]error, len(ids))
	var olds, news []ulid.ULID
	for i, id := range ids {
		if errs[i] = b.refusal(id, newIDs[i]); errs[i] == nil {
			b.accept(id, newIDs[i], status)
			olds, news = append(olds, id), append(news, newIDs[i])
		}
	}
	made, err := t.insertNext(ctx, olds, news, delay, 1, 0)
	if err != nil {
		return nil, nil, err
	}
	jobs := make([]store.Job, len(ids))
	for i := range ids {
		if errs[i] == nil {
			jobs[i], made = made[0], made[1:]
		}
	}
	return jobs, errs, nil
}

// retryBatch is what retryJobs decides on: the rows read, and what the
// retries it allowed so far changed.
type retryBatch struct {
	rows    map[ulid.ULID]store.Job
	holders map[string]ulid.ULID    // the row holding each unique key
	taken   map[ulid.ULID]bool      // the ids in use
	next    map[ulid.ULID]ulid.ULID // the next attempts given by the batch
}

// readRetryFacts reads retryJobs's rows and the new ids in use, in one
// statement: a retry in the job path costs two round trips, as before
// the batches.
func (t *tx) readRetryFacts(ctx context.Context, ids, newIDs []ulid.ULID) (*retryBatch, error) {
	b := &retryBatch{rows: map[ulid.ULID]store.Job{}, holders: map[string]ulid.ULID{}, taken: map[ulid.ULID]bool{},
		next: map[ulid.ULID]ulid.ULID{}}
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) error {
		defer rows.Close()
		var sc jobScan
		for rows.Next() {
			var holder pgtype.UUID
			var taken []pgtype.UUID
			j, err := sc.scanWith(rows, &holder, &taken)
			if err != nil {
				return err
			}
			b.rows[j.ID] = j
			if holder.Valid {
				b.holders[j.UniqueKey] = toULID(holder)
			}
			for _, id := range taken {
				b.taken[toULID(id)] = true
			}
		}
		return rows.Err()
	}, t.s.sql(lockRetriedSQL), idArgs(ids), idArgs(newIDs))
	if err != nil {
		return nil, t.fail(err, "lock %d jobs to retry", len(ids))
	}
	return b, nil
}

// refusal returns why ScheduleRetry would refuse to retry job id as
// newID after the batch's earlier retries, nil if it would not.
func (b *retryBatch) refusal(id, newID ulid.ULID) error {
	j, ok := b.rows[id]
	next, retried := b.next[id]
	if !retried {
		next = j.NextAttemptID
	}
	// b.taken is checked here: a unique violation would abort the
	// transaction.
	return rules.RetryRefusal(id, newID, rules.RetryOf{Row: j, Found: ok, Next: next, IDTaken: b.taken[newID], Holder: b.holders[j.UniqueKey]})
}

// accept records the retry of job id as newID, a row of status s, which
// a later id of the batch may name: it is then refused as that row, not
// as unknown.
func (b *retryBatch) accept(id, newID ulid.ULID, s store.Status) {
	b.next[id], b.taken[newID] = newID, true
	b.rows[newID] = store.Job{ID: newID, Status: s}
	if j := b.rows[id]; j.UniqueKey != "" && j.UniqueStates.Has(s) {
		b.holders[j.UniqueKey] = newID
	}
}

// insertNext inserts, in one statement, the rows news[i] that follow
// jobs olds[i] (a retry or a snooze's) attemptStep attempts and
// snoozeStep snoozes later, links the old rows to them and moves the
// schedules and the waiting rows that pointed at the old rows, then
// notifies the queues of those available at once. It returns the new
// rows in the order of news.
func (t *tx) insertNext(ctx context.Context, olds, news []ulid.ULID, delay time.Duration, attemptStep, snoozeStep int) ([]store.Job, error) {
	if len(olds) == 0 {
		return nil, nil
	}
	var made []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		made, err = collectJobs(rows, len(news))
		return err
	}, t.s.sql(insertNextSQL), t.nowArg(), idArgs(olds), idArgs(news), string(rules.NextStatus(delay)), durationArg(delay),
		int32(attemptStep), int32(snoozeStep))
	var queues []string
	byID := make(map[ulid.ULID]store.Job, len(made))
	for _, j := range made {
		byID[j.ID] = j
		if j.Status == store.Available {
			queues = append(queues, j.Queue)
		}
		if j.Sequence.Key != "" {
			// An insert of its own: the next reservation must take sequence
			// heads, though the last one found no sequence held (an operator's
			// retry of a job its sequence had skipped: seed 44 of
			// TestPostgresTracesMatchMem, property 21).
			t.s.sequenced.Store(true)
		}
	}
	if err == nil && len(queues) > 0 {
		t.madeAvailable() // scheduled at now: it may sort below a reservation hint
		err = t.notifyAvailable(ctx, t.db, queues)
	}
	if err != nil {
		return nil, t.fail(err, "insert the next rows of %d jobs (%s first)", len(olds), olds[0])
	}
	out := make([]store.Job, len(news))
	for i, id := range news {
		out[i] = byID[id]
	}
	return out, nil
}

// lockRetriedSQL locks the rows of $1 in id order and reads each with
// the row that holds its unique key and the ids of $2 in use (the same
// in every row, computed once; no row: every id of $1 is unknown, and
// refused as such first).
var lockRetriedSQL = `
	SELECT ` + jobColumns + `,
	       (SELECT h.id FROM {schema}.jobs AS h WHERE h.unique_key = j.unique_key AND ` + holdsKey("h.") + `),
	       ARRAY(SELECT t.id FROM {schema}.jobs AS t WHERE t.id = ANY ($2::uuid[]))
	FROM {schema}.jobs AS j WHERE j.id = ANY ($1::uuid[]) ORDER BY j.id FOR UPDATE`

// insertNextSQL inserts the rows $3 that follow jobs $2 with status $4 at
// now ($1) + delay ($5), $6 attempts and $7 snoozes more, links the old
// rows to them and moves the schedules and the waiting rows that pointed
// at the old rows. A dead-lettered row's next attempt goes back to the
// queue it came from.
const insertNextSQL = `
	WITH pairs AS (SELECT * FROM unnest($2::uuid[], $3::uuid[]) AS p(old_id, new_id)),
	ins AS (
		INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, schedule_name,
		                           unique_key, unique_states, priority, max_attempts, snoozes, partition_key,
		                           sequence_key, sequence_pos, sequence_continues, awaited, batch, callback_of)
		SELECT p.new_id, coalesce(dead_from, queue), payload, metadata, $4, attempt + $6,
		       coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()) + $5::interval, schedule_name,
		       unique_key, unique_states, priority, max_attempts, snoozes + $7, partition_key,
		       sequence_key, sequence_pos, sequence_continues, awaited,
		       CASE WHEN batch_counted IS NULL THEN batch END, callback_of -- rules.RetryBatch
		FROM {schema}.jobs JOIN pairs AS p ON id = p.old_id WHERE id = ANY ($2::uuid[])
		RETURNING ` + jobColumns + `),
	link AS (UPDATE {schema}.jobs SET next_attempt_id = p.new_id FROM pairs AS p WHERE id = p.old_id AND id = ANY ($2::uuid[])),` +
	repointChildren + `
	repoint AS (UPDATE {schema}.schedules SET last_scheduled_job_id = p.new_id FROM pairs AS p WHERE last_scheduled_job_id = ANY ($2::uuid[]) AND last_scheduled_job_id = p.old_id)
	SELECT ` + jobColumns + ` FROM ins ORDER BY id`

// SnoozeJob locks the row and reads whether it still runs under worker and
// whether newID is taken, in that order of refusal, then marks it snoozed
// and inserts the row that follows it. The new row is inserted only once
// the old one no longer holds its unique key: one statement doing both
// would run them in no set order.
func (t *tx) SnoozeJob(ctx context.Context, worker, id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	var owned, taken bool
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		return br.QueryRow().Scan(&owned, &taken)
	}, t.s.sql(lockSnoozedSQL), idArg(id), idArg(worker), idArg(newID))
	switch {
	case errors.Is(err, pgx.ErrNoRows) || err == nil && !owned:
		return store.Job{}, fmt.Errorf("snooze job %s for worker %s: %w", id, worker, store.ErrFenced)
	case err != nil:
		return store.Job{}, t.fail(err, "snooze job %s", id)
	case taken:
		return store.Job{}, fmt.Errorf("snooze job %s as %s: duplicate id: %w", id, newID, store.ErrConflict)
	}
	err = t.indexScansOnly(ctx, func(br pgx.BatchResults) error { _, err := br.Exec(); return err },
		t.s.sql(snoozeSQL), t.nowArg(), idArg(id))
	if err != nil {
		return store.Job{}, t.fail(err, "snooze job %s", id)
	}
	jobs, err := t.insertNext(ctx, []ulid.ULID{id}, []ulid.ULID{newID}, delay, 0, 1)
	if err != nil {
		return store.Job{}, err
	}
	return jobs[0], nil
}

// lockSnoozedSQL locks job $1 and reads whether it runs under worker $2 (a
// row whose worker was deleted runs under none, the zero id included: its
// NULL started_by makes the comparison NULL, read as false) and whether the
// new id $3 is taken.
const lockSnoozedSQL = `
	SELECT coalesce(status = 'running' AND started_by = $2, false), EXISTS (SELECT 1 FROM {schema}.jobs WHERE id = $3)
	FROM {schema}.jobs WHERE id = $1 FOR UPDATE`

// snoozeSQL ends job $2's run with a snooze at now ($1).
const snoozeSQL = `UPDATE {schema}.jobs SET status = 'snoozed', completed_at = coalesce($1::timestamptz, now()) WHERE id = $2`

// RescueLostJobs first locks the running rows of workers shut down since
// the last rescue, and those whose worker was deleted (started_by NULL),
// then marks them lost with a reason naming the worker (rules.LostReason).
func (t *tx) RescueLostJobs(ctx context.Context) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var ids []pgtype.UUID
	var reasons []string
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) error {
		var id, by pgtype.UUID
		_, err := pgx.ForEachRow(rows, []any{&id, &by}, func() error {
			ids = append(ids, id)
			reasons = append(reasons, rules.LostReason(toULID(by)))
			return nil
		})
		return err
	}, t.s.sql(findLostSQL), t.nowArg())
	if err != nil {
		return nil, t.fail(err, "find lost jobs")
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var jobs []store.Job
	err = t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		jobs, err = collectJobs(rows, len(ids))
		return err
	}, t.s.sql(markLostSQL), t.nowArg(), ids, reasons)
	if err != nil {
		return nil, t.fail(err, "mark %d jobs lost", len(ids))
	}
	return jobs, nil
}

// findLostSQL marks the workers shut down since the last rescue as rescued
// and returns, locked in id order, the running rows they started and those
// whose worker was deleted: index lookups of jobs_running_idx by worker,
// whatever the history of the table ($1 now). The rows are then locked
// through the primary key; the status is matched with a range there so that
// the planner cannot walk all of jobs_running_idx instead (see completeSQL).
const findLostSQL = `
	WITH gone AS (
		UPDATE {schema}.workers SET rescued_at = coalesce($1::timestamptz, now())
		WHERE shutdown_at IS NOT NULL AND rescued_at IS NULL
		RETURNING id),
	found AS (
		SELECT r.id FROM gone CROSS JOIN LATERAL (
			` + runningOfGone + `) AS r
		UNION ALL
		SELECT id FROM {schema}.jobs WHERE started_by IS NULL AND status = 'running')
	SELECT id, started_by FROM {schema}.jobs
	WHERE id = ANY (ARRAY(SELECT id FROM found)) AND status >= 'running' AND status <= 'running'
	ORDER BY id
	FOR UPDATE`

// markLostSQL marks the rows findLostSQL locked lost ($1 now, $2 their ids,
// $3 the reasons).
const markLostSQL = `
	WITH lost AS (
		UPDATE {schema}.jobs SET status = 'lost', failed_at = coalesce($1::timestamptz, now()), failed_reason = r.reason
		FROM unnest($2::uuid[], $3::text[]) AS r(lost_id, reason)
		WHERE id = r.lost_id AND status >= 'running' AND status <= 'running' -- by id, never jobs_running_idx (see completeSQL)
		RETURNING ` + jobColumns + `)
	SELECT ` + jobColumns + ` FROM lost ORDER BY id`
