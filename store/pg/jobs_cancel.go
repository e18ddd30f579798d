package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// CancelJob cancels a live row. When the row was running it then notifies
// the cancel channel with the job's id, so that the worker running it
// cancels its handler at once instead of at its next check. A row that was
// running is the one cancelled row with a started_at: only a reservation
// sets it, and a retry is a new row.
func (t *tx) CancelJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	return t.CancelJobFrom(ctx, id, "")
}

// CancelJobFrom implements store.Tx.
func (t *tx) CancelJobFrom(ctx context.Context, id ulid.ULID, from store.Status) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	// The waits go with the cancel they follow, so that a refused one
	// (a status that moved on from $3) keeps them.
	rows, err := t.db.Query(ctx, t.s.sql(`
		WITH cancelled AS (
			UPDATE {schema}.jobs SET status = 'cancelled', cancelled_at = coalesce($1::timestamptz, now()), parents = NULL
			WHERE id = $2 AND status IN ('scheduled', 'available', 'running', 'waiting') AND ($3 = '' OR status = $3)
			RETURNING `+jobColumns+`),
		gone AS (DELETE FROM {schema}.job_waits WHERE child IN (SELECT id FROM cancelled))
		SELECT `+jobColumns+` FROM cancelled`), t.nowArg(), idArg(id), string(from))
	if err != nil {
		return store.Job{}, t.fail(err, "cancel job %s", id)
	}
	job, err := pgx.CollectExactlyOneRow(rows, scanJob)
	if errors.Is(err, pgx.ErrNoRows) {
		// Not cancellable: say whether it ended or never existed.
		current, getErr := t.GetJob(ctx, id)
		if getErr != nil {
			return store.Job{}, fmt.Errorf("cancel job %s: %w", id, getErr)
		}
		if from != "" && current.Status != from && !current.Status.Terminal() {
			return store.Job{}, fmt.Errorf("cancel job %s: it is %s now, not %s: %w", id, current.Status, from, store.ErrConflict)
		}
		return store.Job{}, fmt.Errorf("cancel job %s: it is %s: %w", id, current.Status, store.ErrConflict)
	}
	if err != nil {
		return store.Job{}, t.fail(err, "cancel job %s", id)
	}
	if !job.StartedAt.IsZero() {
		if _, err := t.db.Exec(ctx, `SELECT pg_notify($1, $2)`, t.s.chCancel, cancelPayload(id)); err != nil {
			return store.Job{}, t.fail(err, "notify the cancel of job %s", id)
		}
	}
	if _, _, err := t.settleFrom(ctx, []ulid.ULID{id}); err != nil {
		return store.Job{}, fmt.Errorf("cancel job %s: %w", id, err)
	}
	return job, nil
}

// cancelPayload is the cancel channel's payload for job id: its uuid text.
func cancelPayload(id ulid.ULID) string { return idArg(id).String() }

// parseCancelPayload reads cancelPayload's text back.
func parseCancelPayload(payload string) (ulid.ULID, bool) {
	var u pgtype.UUID
	if err := u.Scan(payload); err != nil || !u.Valid {
		return ulid.ULID{}, false
	}
	return toULID(u), true
}

// CancelledJobs reads the rows of ids by primary key (cancelledSQL).
func (t *tx) CancelledJobs(ctx context.Context, ids []ulid.ULID) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var out []ulid.ULID
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) { // as in the job pass, which shares the statement
		out, err = readCancelled(rows)
		return err
	}, t.s.sql(cancelledSQL), idArgs(ids))
	if err != nil {
		return nil, t.fail(err, "find the cancelled jobs among %d", len(ids))
	}
	return out, nil
}

// cancelledSQL is CancelledJobs's statement: $1 the ids, each read by
// primary key. The equality on status implies the predicate of
// jobs_ended_idx, but that index holds every finished row and the planner
// knows it, so it is not taken (TestPlansStayBoundedWithAMillionRows);
// jobs_running_idx, which completeSQL must avoid, does not match it.
const cancelledSQL = `SELECT id FROM {schema}.jobs
	WHERE id = ANY($1::uuid[]) AND status = 'cancelled' ORDER BY id`

// readCancelled reads cancelledSQL's ids.
func readCancelled(rows pgx.Rows) ([]ulid.ULID, error) {
	var id pgtype.UUID
	var out []ulid.ULID
	_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		out = append(out, toULID(id))
		return nil
	})
	return out, err
}
