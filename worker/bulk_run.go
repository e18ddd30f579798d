package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Bulk runs r.Action on every job r.Filter selects, or only counts them
// for a dry run. It pages through the jobs table by id, one short
// transaction per r.BatchSize rows read, whatever the filter selects, so
// that no batch reads more rows than that or holds row locks for long;
// the filter is judged on the rows read, age at each batch's store time.
// Jobs enqueued after Bulk started, retries it makes included, are left
// alone. A retry selects only each job's last attempt. A job the store
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
	for _, j := range page {
		if j.ID.Compare(*b.end) > 0 {
			return false, nil
		}
		if b.f.Match(j, now) {
			if err := b.act(ctx, tx, j, res); err != nil {
				return false, err
			}
		}
	}
	if len(page) < b.size {
		return false, nil
	}
	b.after = page[len(page)-1].ID
	return true, nil
}

// act counts job j, which matched, and unless this is a dry run acts on
// it: a refusal of the store is counted, any other error returned.
func (b *bulkRun) act(ctx context.Context, tx store.Tx, j store.Job, res *BulkResult) error {
	res.Matched++
	if b.r.DryRun {
		return nil
	}
	var err error
	switch b.r.Action {
	case BulkRetry:
		_, err = b.c.retryIn(ctx, tx, j)
	case BulkCancel:
		// The status read, not the filter's: a row that moved on since is
		// refused, not cancelled (a scheduled job a leader made available,
		// an available one a worker started: seed 172 of make
		// simulate-pg-ci, property 36).
		_, err = tx.CancelJobFrom(ctx, j.ID, j.Status)
	case BulkDelete:
		_, err = tx.DeleteJob(ctx, j.ID)
	}
	switch {
	case err == nil:
		res.Done++
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound):
		res.Refused++
		if len(res.Refusals) < MaxBulkRefusals {
			res.Refusals = append(res.Refusals, err.Error())
		}
	default:
		return err
	}
	return nil
}

// add counts the batch part into r.
func (r *BulkResult) add(part BulkResult) {
	r.Matched += part.Matched
	r.Done += part.Done
	r.Refused += part.Refused
	r.Batches += part.Batches
	r.Refusals = append(r.Refusals, part.Refusals[:min(len(part.Refusals), MaxBulkRefusals-len(r.Refusals))]...)
}
