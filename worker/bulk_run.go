package worker

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Bulk runs r.Action on every job r.Filter selects, or only counts them
// for a dry run. It pages through the jobs table by id, one short
// transaction per r.BatchSize rows read, whatever the filter selects, so
// that no batch reads more rows than that or holds row locks for long;
// the filter is judged on the rows read, age at each batch's store time,
// and the matching rows of a batch take one store call (store.Tx's
// RetryJobs, CancelJobsFrom, DeleteJobs), not one per row. A cancel
// judges each row as read: a waiting job whose parent the same batch
// cancels is cancelled by the batch, not by its parent's. Jobs enqueued
// after Bulk started, retries it makes included, are left alone. A
// retry selects only each job's last attempt. A job the store
// refuses (store.ErrConflict: a running job is never deleted under its
// worker, a completed one cannot be cancelled or retried) is counted in
// Refused, not an error. A bad request is an error wrapping
// store.ErrInvalid that names the input; another error stops Bulk after
// the batches before it committed, which the result counts.
func (c *Client) Bulk(ctx context.Context, r BulkRequest) (BulkResult, error) {
	var res BulkResult
	if err := r.check(); err != nil {
		return res, fmt.Errorf("worker: bulk %s: %w", r.Action, err)
	}
	b := bulkRun{c: c, r: r, f: r.storeFilter(), size: cmp.Or(r.BatchSize, DefaultBulkBatch)}
	for more := true; more; {
		var part BulkResult
		err := c.st.InTx(ctx, func(tx store.Tx) (err error) {
			part = BulkResult{}
			more, err = b.batch(ctx, tx, &part)
			return err
		})
		if err != nil {
			return res, fmt.Errorf("worker: bulk %s after %d batches: %w", r.Action, res.Batches, err)
		}
		res.add(part)
	}
	return res, nil
}

// storeFilter is the store's form of r.Filter: a retry's jobs are last
// attempts.
func (r BulkRequest) storeFilter() store.JobFilter {
	f := r.Filter
	if mutant.On(mutant.BulkIgnoresStatus) {
		f.Status = ""
	}
	return store.JobFilter{Queue: f.Queue, Status: f.Status, OlderThan: f.OlderThan, Text: f.Text,
		LastAttempt: r.Action == BulkRetry}
}

// bulkRun is the state of one Bulk call between its batches.
type bulkRun struct {
	c     *Client
	r     BulkRequest
	f     store.JobFilter
	size  int
	after ulid.ULID  // the last id read
	end   *ulid.ULID // the newest id when Bulk started, read by its first batch
}

// batch reads the next page of at most size rows in tx, acts on those
// that match, and reports whether rows remain. Bulk stops at a failed
// transaction, so that b.after may run ahead of what committed.
func (b *bulkRun) batch(ctx context.Context, tx store.Tx, res *BulkResult) (bool, error) {
	now, err := tx.Now(ctx)
	if err != nil {
		return false, err
	}
	if b.end == nil {
		newest, err := tx.ListJobs(ctx, store.JobFilter{NewestFirst: true, Limit: 1})
		if err != nil || len(newest) == 0 {
			return false, err
		}
		b.end = &newest[0].ID
	}
	limit := b.size
	if mutant.On(mutant.BulkBatchOverrun) {
		limit *= 2
	}
	page, err := tx.ListJobs(ctx, store.JobFilter{After: b.after, Limit: limit})
	if err != nil {
		return false, err
	}
	res.Batches = 1
	var matched []store.Job
	more := len(page) >= b.size
	for _, j := range page {
		if j.ID.Compare(*b.end) > 0 {
			more = false
			break
		}
		if b.f.Match(j, now) {
			matched = append(matched, j)
		}
	}
	if err := b.act(ctx, tx, matched, now, res); err != nil {
		return false, err
	}
	if more {
		b.after = page[len(page)-1].ID
	}
	return more, nil
}

// act counts jobs, which matched, and unless this is a dry run acts on
// them with one store call: a refusal of the store is counted, any other
// error returned.
func (b *bulkRun) act(ctx context.Context, tx store.Tx, jobs []store.Job, now time.Time, res *BulkResult) error {
	res.Matched += len(jobs)
	if b.r.DryRun || len(jobs) == 0 {
		return nil
	}
	var errs []error
	var err error
	switch b.r.Action {
	case BulkRetry:
		errs, err = b.retry(ctx, tx, jobs, now)
	case BulkCancel:
		// The status read, not the filter's: a row that moved on since is
		// refused, not cancelled (a scheduled job a leader made available,
		// an available one a worker started: seed 172 of make
		// simulate-pg-ci, property 36).
		errs, err = tx.CancelJobsFrom(ctx, idsOf(jobs), statusesOf(jobs))
	case BulkDelete:
		// The status read too: a running job a leader found lost since is
		// refused, not deleted (seed 280 of simulate -store pg
		// -interleave, property 36).
		errs, err = tx.DeleteJobs(ctx, idsOf(jobs), statusesOf(jobs))
	}
	if err != nil {
		return err
	}
	for _, err := range errs {
		res.count(err)
	}
	return nil
}

// retry retries, in one store call, the jobs that retryable allows, each
// as a new id drawn in their order, and returns each job's refusal.
func (b *bulkRun) retry(ctx context.Context, tx store.Tx, jobs []store.Job, now time.Time) ([]error, error) {
	errs := make([]error, len(jobs))
	var ids, newIDs []ulid.ULID
	var at []int // the place in jobs of each of ids
	for i, j := range jobs {
		if errs[i] = retryable(j); errs[i] == nil {
			ids, newIDs, at = append(ids, j.ID), append(newIDs, b.c.newID(now)), append(at, i)
		}
	}
	if len(ids) == 0 {
		return errs, nil
	}
	out, err := tx.RetryJobs(ctx, ids, newIDs, 0)
	for k, e := range out {
		errs[at[k]] = e
	}
	return errs, err
}

// count counts err, the outcome of the action on one job: done when nil,
// else a refusal of the store, whose text the first MaxBulkRefusals keep.
func (r *BulkResult) count(err error) {
	if err == nil {
		r.Done++
		return
	}
	r.Refused++
	if len(r.Refusals) < MaxBulkRefusals {
		r.Refusals = append(r.Refusals, err.Error())
	}
}

// idsOf returns the ids of jobs, in their order.
func idsOf(jobs []store.Job) []ulid.ULID {
	ids := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// add counts the batch part into r.
func (r *BulkResult) add(part BulkResult) {
	r.Matched += part.Matched
	r.Done += part.Done
	r.Refused += part.Refused
	r.Batches += part.Batches
	r.Refusals = append(r.Refusals, part.Refusals[:min(len(part.Refusals), MaxBulkRefusals-len(r.Refusals))]...)
}

// statusesOf returns the status of each of jobs, as read.
func statusesOf(jobs []store.Job) []store.Status {
	out := make([]store.Status, len(jobs))
	for i, j := range jobs {
		out[i] = j.Status
	}
	return out
}
