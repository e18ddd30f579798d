package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// PauseQueue stops every worker from reserving jobs of queue once the
// pause commits, durably and across every process; jobs already running
// finish, and enqueueing goes on. Pausing a paused queue changes nothing.
func (c *Client) PauseQueue(ctx context.Context, queue string) error {
	return c.queueControl(ctx, "pause queue", queue, func(tx store.Tx) error { return tx.PauseQueue(ctx, queue) })
}

// PauseAll stops every worker from reserving jobs of any queue, queues
// that get their first job later included, once the pause commits, until
// ResumeAll: one flag in the store, not a row per queue. Jobs already
// running finish, and enqueueing goes on. A queue's own pause is kept
// apart: ResumeAll does not lift it.
func (c *Client) PauseAll(ctx context.Context) error {
	return c.allControl(ctx, "pause all queues", func(tx store.Tx) error { return tx.PauseAll(ctx) })
}

// ResumeAll lifts PauseAll and wakes the workers; a no-op when not paused.
func (c *Client) ResumeAll(ctx context.Context) error {
	return c.allControl(ctx, "resume all queues", func(tx store.Tx) error { return tx.ResumeAll(ctx) })
}

// PausedAll returns when PauseAll took effect, in store time (zero: every
// queue may run, as its own controls say).
func (c *Client) PausedAll(ctx context.Context) (time.Time, error) {
	var at time.Time
	err := c.allControl(ctx, "read pause of all queues", func(tx store.Tx) (err error) { at, err = tx.PausedAll(ctx); return err })
	return at, err
}

func (c *Client) allControl(ctx context.Context, what string, fn func(store.Tx) error) error {
	if err := c.st.InTx(ctx, fn); err != nil {
		return fmt.Errorf("worker: %s: %w", what, err)
	}
	return nil
}

// ResumeQueue lets workers reserve jobs of queue again.
func (c *Client) ResumeQueue(ctx context.Context, queue string) error {
	return c.queueControl(ctx, "resume queue", queue, func(tx store.Tx) error { return tx.ResumeQueue(ctx, queue) })
}

// SetQueueLimit bounds how many jobs of queue run at once across every
// worker process; 0 removes the bound. It is enforced in each reservation's
// transaction, so it holds with any number of workers; a worker that
// starts as many jobs as it has just finished waits for no other, and one
// that would start more counts the queue's running jobs after those before
// it. A limit below what already runs stops new reservations until fewer
// than the limit run.
func (c *Client) SetQueueLimit(ctx context.Context, queue string, limit int) error {
	return c.queueControl(ctx, "set queue limit", queue, func(tx store.Tx) error { return tx.SetQueueLimit(ctx, queue, limit) })
}

// SetQueueHistory sets whether queue keeps the rows of its completed jobs
// (keep true, the default) until retention deletes them, or has each
// successful completion delete its job's row in the same statement: one
// write fewer per job and nothing for retention to do, at the price of the
// job's history and recorded output. A row something still needs is kept
// whatever the setting: one a waiting job depends on, a batch's member or
// callback, a schedule's run, a retry of an earlier attempt, one whose
// unique key holds while completed (store/internal/rules.DeletesAtCompletion).
// Rows completed before the change stay until retention.
func (c *Client) SetQueueHistory(ctx context.Context, queue string, keep bool) error {
	return c.queueControl(ctx, "set history of", queue, func(tx store.Tx) error { return tx.SetQueueHistory(ctx, queue, keep) })
}

// SetQueueRate bounds how many jobs of queue start in any window of
// period of database time across every worker process to n; 0 removes the
// bound. Each reservation's transaction admits its starts through the
// queue's n rate slots, so it holds with any number of workers and they do
// not wait on each other. A new rate keeps the latest starts under the old
// one: lowering it right after a burst admits nothing more until the
// burst's starts are a period old. Bounds: n to store.MaxQueueRate, period
// from store.MinRatePeriod to store.MaxRatePeriod.
func (c *Client) SetQueueRate(ctx context.Context, queue string, n int, period time.Duration) error {
	return c.queueControl(ctx, "set queue rate", queue, func(tx store.Tx) error { return tx.SetQueueRate(ctx, queue, n, period) })
}

// ListQueues returns every queue that has jobs or controls, in name order,
// with its state, limit, rate and row counts by status.
func (c *Client) ListQueues(ctx context.Context) ([]store.QueueStats, error) {
	var out []store.QueueStats
	err := c.st.InTx(ctx, func(tx store.Tx) (err error) { out, err = tx.ListQueues(ctx); return err })
	if err != nil {
		return nil, fmt.Errorf("worker: list queues: %w", err)
	}
	return out, nil
}

func (c *Client) queueControl(ctx context.Context, what, queue string, fn func(store.Tx) error) error {
	if err := c.st.InTx(ctx, fn); err != nil {
		return fmt.Errorf("worker: %s %s: %w", what, names.Quote(queue), err)
	}
	return nil
}
