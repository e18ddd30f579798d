package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// DeleteJob implements store.Tx: the batch of one job.
func (t *tx) DeleteJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	jobs, errs, err := t.deleteJobs(ctx, []ulid.ULID{id}, []store.Status{""})
	if err != nil {
		return store.Job{}, err
	}
	return jobs[0], errs[0]
}

// DeleteJobs implements store.Tx.
func (t *tx) DeleteJobs(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]error, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := rules.SameLength("delete jobs", len(ids), len(from)); err != nil {
		return nil, err
	}
	_, errs, err := t.deleteJobs(ctx, ids, from)
	return errs, err
}

// deleteFacts is a row deleteFactsSQL read, with what keeps it.
type deleteFacts struct {
	job  store.Job
	kept rules.Kept  // Chained unset: prev says it
	prev pgtype.UUID // the earlier attempt that names it as its next
}

// deleteJobs locks the rows of ids and reads, with each, its status
// (refused unless from[i], or from[i] is "") and what
// rules.CheckDelete decides on (whether a waiting row waits for it,
// whether its batch counted it, which earlier attempt links to it); it
// decides on each id in turn as DeleteJob after DeleteJob would (a row
// whose earlier attempt went before it is no longer chained), then
// deletes the rows allowed, and the batches row of each callback left
// without a row, as retention does; the foreign keys set the links to
// them to NULL. The locks hold off a concurrent end, retry or cancel until commit, and a
// child inserted meanwhile, which locks its parents. It returns each
// deleted row, and each refusal.
func (t *tx) deleteJobs(ctx context.Context, ids []ulid.ULID, from []store.Status) ([]store.Job, []error, error) {
	facts, err := t.readDeleteFacts(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	jobs, errs := make([]store.Job, len(ids)), make([]error, len(ids))
	gone := make(map[ulid.ULID]bool, len(ids))
	var del []ulid.ULID
	for i, id := range ids {
		f, ok := facts[id]
		if !ok || gone[id] {
			errs[i] = fmt.Errorf("delete job %s: %w", id, store.ErrNotFound)
			continue
		}
		f.kept.Chained = f.prev.Valid && !gone[toULID(f.prev)]
		if errs[i] = rules.DeleteFrom(f.job, from[i]); errs[i] != nil {
			continue
		}
		errs[i] = rules.CheckDelete(f.job, f.kept)
		if mutant.On(mutant.PGBulkDeleteUnchecked) {
			errs[i] = nil
		}
		if errs[i] == nil {
			jobs[i], gone[id] = f.job, true
			del = append(del, id)
		}
	}
	if len(del) > 0 {
		err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error { _, err := br.Exec(); return err },
			t.s.sql(deleteJobSQL), idArgs(del))
		if err != nil {
			return nil, nil, t.fail(err, "delete %d jobs", len(del))
		}
	}
	return jobs, errs, nil
}

// readDeleteFacts runs deleteFactsSQL for ids, by id.
func (t *tx) readDeleteFacts(ctx context.Context, ids []ulid.ULID) (map[ulid.ULID]deleteFacts, error) {
	out := make(map[ulid.ULID]deleteFacts, len(ids))
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) error {
		defer rows.Close()
		var sc jobScan
		for rows.Next() {
			var f deleteFacts
			j, err := sc.scanWith(rows, &f.kept.Awaited, &f.kept.Uncounted, &f.prev)
			if err != nil {
				return err
			}
			f.job = j
			out[j.ID] = f
		}
		return rows.Err()
	}, t.s.sql(deleteFactsSQL), idArgs(ids))
	if err != nil {
		return nil, t.fail(err, "lock %d jobs to delete", len(ids))
	}
	return out, nil
}

// deleteFactsSQL locks the rows of $1 in id order and reads each with
// what keeps it (rules.Kept), each by an index: job_waits' primary key
// and jobs_next_attempt_idx.
const deleteFactsSQL = `SELECT ` + jobColumns + `,
	awaited IS NOT NULL AND EXISTS (SELECT FROM {schema}.job_waits AS w WHERE w.parent = j.id),
	coalesce(` + batchUncounted + `, false),
	(SELECT p.id FROM {schema}.jobs AS p WHERE p.next_attempt_id = j.id LIMIT 1)
	FROM {schema}.jobs AS j WHERE j.id = ANY ($1::uuid[]) ORDER BY j.id FOR UPDATE`

// deleteJobSQL deletes the rows of $1 and the batch of each callback
// that has no row left.
const deleteJobSQL = `
	WITH gone AS (DELETE FROM {schema}.jobs WHERE id = ANY ($1::uuid[]) RETURNING id, callback_of)
	` + deleteBatchesSQL

// deleteBatchesSQL, after a CTE gone that deleted rows of jobs (RETURNING
// id, callback_of), deletes the batches whose callback has no row left:
// a later attempt of the callback reads its batch when it runs. The
// statement's snapshot still holds the rows gone deleted, hence their
// exclusion; jobs_callback_idx (migration 0026) finds a callback's rows.
const deleteBatchesSQL = `DELETE FROM {schema}.batches AS b
	WHERE b.id = ANY (ARRAY(SELECT callback_of FROM gone WHERE callback_of IS NOT NULL))
	  AND NOT EXISTS (SELECT FROM {schema}.jobs AS j
		WHERE j.callback_of = b.id AND j.id <> ALL (ARRAY(SELECT id FROM gone)))`
