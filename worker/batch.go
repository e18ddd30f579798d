package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/failreason"
	"github.com/tickwork/tickwork/store"
)

// EnqueueBatch stores members as EnqueueMany does (opts apply to them),
// and callback, a job enqueued with the options given by CallbackOptions
// among opts, that waits in status store.Waiting until every member
// ended for good: completed, failed with no retry left, or cancelled. A
// member that is retried, snoozed or rescued from a dead worker has not
// ended; it is counted once, when its last attempt ends. The leader counts
// the members' ends in its pass and releases the callback in the pass
// that counts the last one, so the callback starts within a leader pass
// (about a second) of the last end. It runs once (its own retries are
// the same job), and its handler finds the outcome in Job.Batch: how many
// members completed, failed and were cancelled, and the ids of the first
// store.MaxBatchFailedIDs failed ones. The batch's id is the callback's;
// EnqueueBatch returns it and the members' ids, in the order of members.
// Members and callback cannot be unique (WithUniqueKey); at least one
// member is needed.
func EnqueueBatch[T, C any](ctx context.Context, c *Client, members []T, callback C, opts ...EnqueueOption) (ulid.ULID, []ulid.ULID, error) {
	if len(members) == 0 {
		return ulid.ULID{}, nil, fmt.Errorf("worker: a batch without members: %w", store.ErrInvalid)
	}
	jobs, o, err := newJobs(ctx, c, members, opts)
	if err != nil {
		return ulid.ULID{}, nil, err
	}
	cb, _, err := newJobs(ctx, c, []C{callback}, o.callbackOpts)
	if err != nil {
		return ulid.ULID{}, nil, fmt.Errorf("worker: batch callback: %w", err)
	}
	jobs, o.callback = append(jobs, cb[0]), true
	if err := c.st.InTx(ctx, func(tx store.Tx) error { return c.insert(ctx, tx, jobs, o) }); err != nil {
		return ulid.ULID{}, nil, err
	}
	ids := make([]ulid.ULID, len(members))
	for i := range ids {
		ids[i] = jobs[i].ID
	}
	return jobs[len(jobs)-1].ID, ids, nil
}

// CallbackOptions are the options of EnqueueBatch's callback, as opts
// are its members': its queue, metadata, priority or time. A callback
// cannot be unique, wait for parents (After) or be in a sequence.
func CallbackOptions(opts ...EnqueueOption) EnqueueOption {
	return func(o *enqueueOptions) { o.callbackOpts = append(o.callbackOpts, opts...) }
}

// makeBatch makes the last of jobs, which have their ids, the callback of
// the others, and returns the others.
func makeBatch(jobs []store.NewJob) []store.NewJob {
	cb := &jobs[len(jobs)-1]
	cb.Callback = true
	members := jobs[:len(jobs)-1]
	for i := range members {
		members[i].Batch = cb.ID
	}
	return members
}

// batchOf reads the outcome of batch id for its callback's handler.
func (w *Worker) batchOf(ctx context.Context, id ulid.ULID) (store.Batch, error) {
	var b store.Batch
	err := w.st.InTx(ctx, func(tx store.Tx) (err error) { b, err = tx.GetBatch(ctx, id); return err })
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Batch{}, fmt.Errorf("%s: batch %s: %w", failreason.BatchGone, id, err)
	case err != nil:
		return store.Batch{}, fmt.Errorf("worker: read batch %s for its callback: %w", id, err)
	}
	return b, nil
}
