package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

func (t *tx) RegisterWorker(ctx context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	tag, err := t.db.Exec(ctx, t.s.sql(`
		INSERT INTO {schema}.workers (id, registered_at, last_seen_at)
		VALUES ($2, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()))
		ON CONFLICT (id) DO NOTHING`), t.nowArg(), idArg(id))
	if err != nil {
		return t.fail(err, "register worker %s", id)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("register worker %s: %w", id, store.ErrConflict)
	}
	return nil
}

// liveWorkerRow selects the row of worker $2 if that worker is live. Every
// statement that needs a live worker tests it through workerLive, or, to
// share-lock the row, through EXISTS (liveWorkerRow FOR SHARE).
const liveWorkerRow = `SELECT 1 FROM {schema}.workers WHERE id = $2 AND shutdown_at IS NULL`

// workerLive is true when worker $2 is live.
const workerLive = `EXISTS (` + liveWorkerRow + `)`

// workerLiveLocked is workerLive with the row share-locked until commit: it
// waits for a transaction that is changing the row (a leader declaring the
// worker dead) and is then decided on the row that transaction left.
const workerLiveLocked = `EXISTS (` + liveWorkerRow + ` FOR SHARE)`

// heartbeatSQL is Heartbeat's statement: $1 now, $2 the worker.
const heartbeatSQL = `
	UPDATE {schema}.workers SET last_seen_at = coalesce($1::timestamptz, now())
	WHERE id = $2 AND shutdown_at IS NULL`

func (t *tx) Heartbeat(ctx context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	tag, err := t.db.Exec(ctx, t.s.sql(heartbeatSQL), t.nowArg(), idArg(id))
	if err != nil {
		return t.fail(err, "heartbeat of worker %s", id)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("heartbeat of worker %s: no live worker: %w", id, store.ErrNotFound)
	}
	return nil
}

func (t *tx) ShutdownWorker(ctx context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	tag, err := t.db.Exec(ctx, t.s.sql(`
		UPDATE {schema}.workers SET shutdown_at = coalesce(shutdown_at, $1::timestamptz, now())
		WHERE id = $2`), t.nowArg(), idArg(id))
	if err != nil {
		return t.fail(err, "shut down worker %s", id)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("shut down worker %s: %w", id, store.ErrNotFound)
	}
	return nil
}

func (t *tx) ShutdownDeadWorkers(ctx context.Context, threshold time.Duration) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if mutant.On(mutant.PGDeadUnchecked) {
		return t.shutdownDeadWorkersSplit(ctx, threshold)
	}
	ids, err := t.queryIDs(ctx, t.s.sql(`
		WITH dead AS (
			UPDATE {schema}.workers SET shutdown_at = coalesce($1::timestamptz, now())
			WHERE shutdown_at IS NULL AND last_seen_at < coalesce($1::timestamptz, now()) - $2::interval
			RETURNING id)
		SELECT id FROM dead ORDER BY id`), t.nowArg(), durationArg(threshold))
	if err != nil {
		return nil, t.fail(err, "shut down workers unseen for %v", threshold)
	}
	return ids, nil
}

// queryIDs runs a statement whose rows are ids and returns them in order.
func (t *tx) queryIDs(ctx context.Context, sql string, args ...any) ([]ulid.ULID, error) {
	rows, err := t.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (ulid.ULID, error) {
		var id pgtype.UUID
		err := r.Scan(&id)
		return toULID(id), err
	})
}

func (t *tx) ListWorkers(ctx context.Context) ([]store.Worker, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(`
		SELECT id, registered_at, last_seen_at, shutdown_at FROM {schema}.workers ORDER BY id`))
	if err != nil {
		return nil, t.fail(err, "list workers")
	}
	workers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Worker, error) {
		var id pgtype.UUID
		var registered, seen, shutdown pgtype.Timestamptz
		err := r.Scan(&id, &registered, &seen, &shutdown)
		return store.Worker{ID: toULID(id), RegisteredAt: toTime(registered), LastSeenAt: toTime(seen), ShutdownAt: toTime(shutdown)}, err
	})
	if err != nil {
		return nil, t.fail(err, "list workers")
	}
	return workers, nil
}

// DeleteOldWorkers deletes the workers and, as ON DELETE SET NULL would
// but only where it matters, sets started_by to NULL on the running jobs
// they left (rescued then as jobs of a deleted worker), in one statement.
// Finished jobs keep the id of the worker that ran them: finding them
// would read every job the worker ran, or cost every job an index entry.
func (t *tx) DeleteOldWorkers(ctx context.Context, age time.Duration) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	var n int
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&n) },
		t.s.sql(deleteOldWorkersSQL), t.nowArg(), durationArg(age))
	if err != nil {
		return 0, t.fail(err, "delete workers shut down more than %v ago", age)
	}
	return n, nil
}

// deleteOldWorkersSQL is DeleteOldWorkers's statement: $1 now, $2 the age.
// It finds the running jobs through jobs_running_idx, by worker.
const deleteOldWorkersSQL = `
	WITH gone AS (
		DELETE FROM {schema}.workers WHERE shutdown_at < coalesce($1::timestamptz, now()) - $2::interval
		RETURNING id),
	orphaned AS (
		UPDATE {schema}.jobs SET started_by = NULL
		WHERE id = ANY (ARRAY(SELECT r.id FROM gone CROSS JOIN LATERAL (` + runningOfGone + `) AS r))
		  AND status >= 'running' AND status <= 'running')
	SELECT count(*) FROM gone`

// runningOfGone selects the ids of the running jobs of worker gone.id
// through jobs_running_idx. OFFSET 0 keeps it a subquery run for each
// worker: pulled up into a join, the planner may hash-join the workers
// with all of the index, whose entries include one for every job any
// worker ran since the last vacuum. The rows are then updated through the
// primary key, the status matched with a range (see completeSQL).
const runningOfGone = `SELECT id FROM {schema}.jobs WHERE started_by = gone.id AND status = 'running' OFFSET 0`
