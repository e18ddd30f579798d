package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// DeleteJob locks the row and reads, with it, what rules.CheckDelete
// decides on (whether a waiting row waits for it, whether its batch
// counted it, whether an earlier attempt links to it); only if
// CheckDelete allows does it delete the row, and a callback's batches row
// with it, as retention does; the foreign keys set the links to it to
// NULL. The lock holds off a concurrent end, retry or cancel until
// commit, and a child inserted meanwhile, which locks its parents.
func (t *tx) DeleteJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	var kept rules.Kept
	rows, err := t.db.Query(ctx, t.s.sql(deleteFactsSQL), idArg(id))
	if err != nil {
		return store.Job{}, t.fail(err, "delete job %s", id)
	}
	var sc jobScan
	job, err := pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (store.Job, error) {
		return sc.scanWith(row, &kept.Awaited, &kept.Uncounted, &kept.Chained)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, fmt.Errorf("delete job %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, t.fail(err, "delete job %s", id)
	}
	if err := rules.CheckDelete(job, kept); err != nil {
		return store.Job{}, err
	}
	if _, err := t.db.Exec(ctx, t.s.sql(deleteJobSQL), idArg(id)); err != nil {
		return store.Job{}, t.fail(err, "delete job %s", id)
	}
	return job, nil
}

// deleteFactsSQL locks row $1 and reads it with what keeps it
// (rules.Kept), each by an index: job_waits' primary key and
// jobs_next_attempt_idx.
const deleteFactsSQL = `SELECT ` + jobColumns + `,
	awaited IS NOT NULL AND EXISTS (SELECT FROM {schema}.job_waits AS w WHERE w.parent = j.id),
	coalesce(` + batchUncounted + `, false),
	EXISTS (SELECT FROM {schema}.jobs AS p WHERE p.next_attempt_id = j.id)
	FROM {schema}.jobs AS j WHERE j.id = $1 FOR UPDATE`

// deleteJobSQL deletes row $1 and, when it is a callback, its batch.
const deleteJobSQL = `
	WITH gone AS (DELETE FROM {schema}.jobs WHERE id = $1 RETURNING id, callback_of)
	DELETE FROM {schema}.batches WHERE id = ANY (ARRAY(SELECT id FROM gone WHERE callback_of = id))`
