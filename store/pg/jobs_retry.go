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

// ScheduleRetry locks the old row, checks it may be retried, then in one
// statement inserts the next attempt, links the old row to it and moves any
// schedule pointing at the old row.
func (t *tx) ScheduleRetry(ctx context.Context, id, newID ulid.ULID, delay time.Duration) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	var status string
	var next, holder pgtype.UUID
	var taken bool
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		return br.QueryRow().Scan(&status, &next, &taken, &holder)
	}, t.s.sql(lockRetriedSQL), idArg(id), idArg(newID))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.Job{}, fmt.Errorf("retry job %s: %w", id, store.ErrNotFound)
	case err != nil:
		return store.Job{}, t.fail(err, "retry job %s", id)
	case status != string(store.Failed) && status != string(store.Lost):
		return store.Job{}, fmt.Errorf("retry job %s: it is %s, not failed or lost: %w", id, status, store.ErrConflict)
	case next.Valid:
		return store.Job{}, fmt.Errorf("retry job %s: it already has a next attempt %s: %w", id, toULID(next), store.ErrConflict)
	case taken:
		// Checked here: a unique violation would abort the transaction.
		return store.Job{}, fmt.Errorf("retry job %s as %s: duplicate id: %w", id, newID, store.ErrConflict)
	case holder.Valid:
		return store.Job{}, fmt.Errorf("retry job %s: job %s holds its unique key: %w", id, toULID(holder), store.ErrConflict)
	}
	return t.insertNext(ctx, id, newID, delay, 1, 0)
}

// insertNext inserts, in one statement, the row newID that follows job id
// (a retry or a snooze's) attempt numbers and attemptStep snoozes more,
// links the old row to it and moves any schedule that pointed at the old
// row, then notifies its queue if it is available at once.
func (t *tx) insertNext(ctx context.Context, id, newID ulid.ULID, delay time.Duration, attemptStep, snoozeStep int) (store.Job, error) {
	newStatus := store.Scheduled
	if delay <= 0 {
		newStatus = store.Available
	}
	var job store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		job, err = pgx.CollectExactlyOneRow(rows, scanJob)
		return err
	}, t.s.sql(insertNextSQL), t.nowArg(), idArg(id), idArg(newID), string(newStatus), durationArg(delay),
		int32(attemptStep), int32(snoozeStep))
	if err == nil && job.Status == store.Available {
		t.madeAvailable() // scheduled at now: it may sort below a reservation hint
		err = t.notifyAvailable(ctx, t.db, []string{job.Queue})
	}
	if err != nil {
		return store.Job{}, t.fail(err, "insert the next row %s of job %s", newID, id)
	}
	if job.Sequence.Key != "" {
		// An insert of its own: the next reservation must take sequence
		// heads, though the last one found no sequence held (an operator's
		// retry of a job its sequence had skipped: seed 44 of
		// TestPostgresTracesMatchMem, property 21).
		t.s.sequenced.Store(true)
	}
	return job, nil
}

// lockRetriedSQL locks job $1 and reads what ScheduleRetry checks, and
// whether the new id $2 is taken.
var lockRetriedSQL = `
	SELECT status, next_attempt_id, EXISTS (SELECT 1 FROM {schema}.jobs WHERE id = $2),
	       (SELECT h.id FROM {schema}.jobs AS h WHERE h.unique_key = j.unique_key AND ` + holdsKey("h.") + `)
	FROM {schema}.jobs AS j WHERE id = $1 FOR UPDATE`

// insertNextSQL inserts the row $3 that follows job $2 with status $4 at
// now ($1) + delay ($5), $6 attempts and $7 snoozes more, links the old
// row to it and moves the schedule that pointed at the old row. A
// dead-lettered row's next attempt goes back to the queue it came from.
const insertNextSQL = `
	WITH ins AS (
		INSERT INTO {schema}.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, schedule_name,
		                           unique_key, unique_states, priority, max_attempts, snoozes, partition_key,
		                           sequence_key, sequence_pos, sequence_continues, awaited, batch, callback_of)
		SELECT $3, coalesce(dead_from, queue), payload, metadata, $4, attempt + $6,
		       coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()) + $5::interval, schedule_name,
		       unique_key, unique_states, priority, max_attempts, snoozes + $7, partition_key,
		       sequence_key, sequence_pos, sequence_continues, awaited,
		       CASE WHEN batch_counted IS NULL THEN batch END, callback_of -- rules.RetryBatch
		FROM {schema}.jobs WHERE id = $2
		RETURNING ` + jobColumns + `),
	link AS (UPDATE {schema}.jobs SET next_attempt_id = $3 WHERE id = $2),` + repointChildren + `
	repoint AS (UPDATE {schema}.schedules SET last_scheduled_job_id = $3 WHERE last_scheduled_job_id = $2)
	SELECT ` + jobColumns + ` FROM ins`

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
	return t.insertNext(ctx, id, newID, delay, 0, 1)
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
