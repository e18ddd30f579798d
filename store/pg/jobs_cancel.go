package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// CancelJob cancels a live row. When the row was running it then notifies
// the cancel channel with the job's id, so that the worker running it
// cancels its handler at once instead of at its next check. A row that was
// running is the one cancelled row with a started_at: only a reservation
// sets it, and a retry is a new row.
func (t *tx) CancelJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	return t.CancelJobFrom(ctx, id, "")
}

// CancelJobFrom implements store.Tx: the batch of one job.
func (t *tx) CancelJobFrom(ctx context.Context, id ulid.ULID, from store.Status) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	jobs, errs, err := t.cancelJobs(ctx, []ulid.ULID{id}, []store.Status{from})
	if err != nil {
		return store.Job{}, err
	}
	return jobs[0], errs[0]
}

// CancelJobsFrom implements store.Tx.
func (t *tx) CancelJobsFrom(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("cancel jobs", len(ids), len(from)); err != nil {
		return nil, err
	}
	_, errs, err := t.cancelJobs(ctx, ids, from)
	return errs, err
}

// cancelJobs cancels, in one statement, the first occurrence of each of
// ids whose row rules.Cancellable allows from from[i]; reads the others
// back, in one statement, to say why each was refused; notifies the
// cancel channel of the rows that were running; then settles the rows
// waiting for those it cancelled. It returns each cancelled row, and
// each refusal.
func (t *tx) cancelJobs(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]store.Job, []error, error) {
	first, firstFrom := firstOccurrences(ids, from)
	var done []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		done, err = collectJobs(rows, len(first))
		return err
	}, t.s.sql(cancelJobsSQL), t.nowArg(), idArgs(first), firstFrom)
	if err != nil {
		return nil, nil, t.fail(err, "cancel %d jobs", len(first))
	}
	byID := make(map[ulid.ULID]store.Job, len(done))
	cancelled := make([]ulid.ULID, len(done))
	var cancels []string // cancel channel payloads, in id order
	for i, j := range done {
		byID[j.ID], cancelled[i] = j, j.ID
		if !j.StartedAt.IsZero() {
			cancels = append(cancels, cancelPayload(j.ID))
		}
	}
	jobs, errs, err := t.cancelOutcomes(ctx, ids, from, byID)
	if err != nil {
		return nil, nil, err
	}
	if len(cancels) > 0 {
		_, err := t.db.Exec(ctx, `SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p`, t.s.chCancel, cancels)
		if err != nil {
			return nil, nil, t.fail(err, "notify the cancel of %d jobs", len(cancels))
		}
	}
	if len(done) > 0 {
		if _, _, err := t.settleFrom(ctx, cancelled); err != nil {
			return nil, nil, fmt.Errorf("cancel %d jobs: %w", len(done), err)
		}
	}
	return jobs, errs, nil
}

// cancelOutcomes returns, in the order of ids, the cancelled row of each
// id in done the first time it comes, and the refusal of every other,
// said from its row as it is now (rules.CancelRefusal).
func (t *tx) cancelOutcomes(ctx context.Context, ids []ulid.ULID, from []store.Status, done map[ulid.ULID]store.Job) ([]store.Job, []error, error) {
	var refused []ulid.ULID
	given := make(map[ulid.ULID]bool, len(ids))
	for _, id := range ids {
		if _, ok := done[id]; !ok || given[id] {
			refused = append(refused, id)
		}
		given[id] = true
	}
	rows, err := t.currentRows(ctx, refused, false)
	if err != nil {
		return nil, nil, t.fail(err, "read %d jobs not cancelled", len(refused))
	}
	jobs, errs := make([]store.Job, len(ids)), make([]error, len(ids))
	clear(given)
	for i, id := range ids {
		if j, ok := done[id]; ok && !given[id] {
			jobs[i] = j
		} else {
			j, ok := rows[id]
			errs[i] = rules.CancelRefusal(id, j, ok, from[i])
		}
		given[id] = true
	}
	return jobs, errs, nil
}

// firstOccurrences returns the ids each once, in their order, with the
// status given with the first occurrence of each.
func firstOccurrences(ids []ulid.ULID, from []store.Status) ([]ulid.ULID, []string) {
	seen := make(map[ulid.ULID]bool, len(ids))
	var first []ulid.ULID
	var firstFrom []string
	for i, id := range ids {
		if !seen[id] {
			seen[id] = true
			first = append(first, id)
			firstFrom = append(firstFrom, string(from[i]))
		}
	}
	return first, firstFrom
}

// cancelJobsSQL cancels at now ($1) each row of $2 whose status is live
// and the one given with it in $3 ("" for any), and returns the rows it
// cancelled in id order. The waits go with the cancels they follow, so
// that a refused row (a status that moved on) keeps them.
const cancelJobsSQL = `
	WITH cancelled AS (
		UPDATE {schema}.jobs AS j SET status = 'cancelled', cancelled_at = coalesce($1::timestamptz, now()), parents = NULL
		FROM unnest($2::uuid[], $3::text[]) AS r(cancel_id, cancel_from)
		WHERE j.id = ANY ($2::uuid[]) AND j.id = r.cancel_id
		  AND j.status IN ('scheduled', 'available', 'running', 'waiting') AND (r.cancel_from = '' OR j.status = r.cancel_from)
		RETURNING ` + jobColumns + `),
	gone AS (DELETE FROM {schema}.job_waits WHERE child IN (SELECT id FROM cancelled))
	SELECT ` + jobColumns + ` FROM cancelled ORDER BY id`

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
		out, err = readIDs(rows)
		return err
	}, t.s.sql(cancelledSQL), idArgs(ids))
	if err != nil {
		return nil, t.fail(err, "find the cancelled jobs among %d", len(ids))
	}
	return out, nil
}

// cancelledSQL is CancelledJobs's statement: $1 the ids, each read by
// primary key. It states nothing on the end time, so jobs_ended_idx,
// whose predicate does (migration 0022), cannot serve it, even when
// statistics call that index empty
// (TestPlansStayBoundedWithStaleStatistics); jobs_running_idx, which
// completeSQL must avoid, does not match it either.
const cancelledSQL = `SELECT id FROM {schema}.jobs
	WHERE id = ANY($1::uuid[]) AND status = 'cancelled' ORDER BY id`

// readIDs reads rows of one id each: cancelledSQL's, and others.
func readIDs(rows pgx.Rows) ([]ulid.ULID, error) {
	var id pgtype.UUID
	var out []ulid.ULID
	_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		out = append(out, toULID(id))
		return nil
	})
	return out, err
}
