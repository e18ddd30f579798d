package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// Retry starts a new attempt of failed or lost job id, available at once
// whatever its retry count (an operator's retry, `worker jobs retry`), and
// returns the new attempt. A job of a sequence keeps its place. A job
// that is not failed or lost, or was retried already, is refused with an
// error wrapping store.ErrConflict that says so; an unknown id with
// store.ErrNotFound.
func (c *Client) Retry(ctx context.Context, id ulid.ULID) (store.Job, error) {
	var next store.Job
	err := c.st.InTx(ctx, func(tx store.Tx) error {
		job, err := tx.GetJob(ctx, id)
		if err != nil {
			return err
		}
		next, err = c.retryIn(ctx, tx, job)
		return err
	})
	if err != nil {
		return store.Job{}, fmt.Errorf("worker: retry job %s: %w", id, err)
	}
	return next, nil
}

// retryIn retries job in tx, as Retry promises: one rule for the single
// and the bulk retry.
func (c *Client) retryIn(ctx context.Context, tx store.Tx, job store.Job) (store.Job, error) {
	if err := retryable(job); err != nil {
		return store.Job{}, err
	}
	now, err := tx.Now(ctx)
	if err != nil {
		return store.Job{}, err
	}
	return tx.ScheduleRetry(ctx, job.ID, c.newID(now), 0)
}

// retryable returns why job, as read, may not be retried (wrapping
// store.ErrConflict), nil if it may: the rule of Retry and Bulk.
func retryable(job store.Job) error {
	if job.Status != store.Failed && job.Status != store.Lost {
		return fmt.Errorf("job %s is %s; only failed or lost jobs can be retried: %w", job.ID, job.Status, store.ErrConflict)
	}
	if job.NextAttemptID != (ulid.ULID{}) {
		return fmt.Errorf("job %s was already retried as job %s: %w", job.ID, job.NextAttemptID, store.ErrConflict)
	}
	return nil
}

// newID returns a job id for store time now from the client's randomness.
func (c *Client) newID(now time.Time) ulid.ULID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clockrng.NewULID(now, c.rnd)
}
