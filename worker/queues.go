package worker

import (
	"context"
	"fmt"

	"github.com/tickwork/tickwork/store"
)

// PauseQueue stops every worker from reserving jobs of queue once the
// pause commits, durably and across every process; jobs already running
// finish, and enqueueing goes on. Pausing a paused queue changes nothing.
func (c *Client) PauseQueue(ctx context.Context, queue string) error {
	return c.queueControl(ctx, "pause queue", queue, func(tx store.Tx) error { return tx.PauseQueue(ctx, queue) })
}

// ResumeQueue lets workers reserve jobs of queue again.
func (c *Client) ResumeQueue(ctx context.Context, queue string) error {
	return c.queueControl(ctx, "resume queue", queue, func(tx store.Tx) error { return tx.ResumeQueue(ctx, queue) })
}

// SetQueueLimit bounds how many jobs of queue run at once across every
// worker process; 0 removes the bound. It is enforced in each reservation's
// transaction, so it holds with any number of workers; a limit below what
// already runs only stops new reservations until enough finish.
func (c *Client) SetQueueLimit(ctx context.Context, queue string, limit int) error {
	return c.queueControl(ctx, "set queue limit", queue, func(tx store.Tx) error { return tx.SetQueueLimit(ctx, queue, limit) })
}

// ListQueues returns every queue that has jobs or controls, in name order,
// with its state, limit and row counts by status.
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
		return fmt.Errorf("worker: %s %s: %w", what, store.QuoteCut(queue), err)
	}
	return nil
}
