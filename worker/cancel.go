package worker

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// ErrJobCancelled is the cause (context.Cause) with which a handler's
// context is cancelled when its job is cancelled while it runs
// (Client.Cancel, worker jobs cancel, the console): the job will neither
// complete nor be retried, whatever the handler returns.
var ErrJobCancelled = engine.ErrJobCancelled

// ErrShutdownCancel is the cause with which a handler's context is
// cancelled at the drain deadline of a graceful shutdown or when the drain
// is abandoned (Options.Abandon): its job is released and retried while
// attempts remain, with the cause's text as its reason.
var ErrShutdownCancel = engine.ErrShutdownCancel

// Cancel cancels job id, durably and for every worker process: a
// scheduled or available job never runs, and the worker running a running
// one cancels its handler's context with cause ErrJobCancelled, at once
// when the store's notification reaches it and within about 1.2 poll
// intervals when it is lost, and ignores its result. A cancelled job is
// not retried. Cancel returns the cancelled row; an error wrapping
// store.ErrConflict for a job that already ended, store.ErrNotFound for an
// unknown id.
func (c *Client) Cancel(ctx context.Context, id ulid.ULID) (store.Job, error) {
	var job store.Job
	err := c.st.InTx(ctx, func(tx store.Tx) (err error) { job, err = tx.CancelJob(ctx, id); return err })
	if err != nil {
		return store.Job{}, fmt.Errorf("worker: %w", err)
	}
	return job, nil
}
