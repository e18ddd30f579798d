package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// snoozeJob writes a Snooze result: the row becomes snoozed and a new row
// runs the same attempt r.Snooze later in store time (within [0,
// clockrng.MaxDuration]: the driver's wait is not trusted to be sane). A
// job that already snoozed MaxSnoozes times fails for good instead, so
// that a handler that always snoozes cannot keep its job alive forever.
func (c *Core) snoozeJob(ctx context.Context, tx store.Tx, now time.Time, r pendingResult) error {
	job, worker := *r.job, r.job.StartedBy
	if job.Snoozes >= c.cfg.MaxSnoozes {
		reason := fmt.Sprintf("asked to snooze again after %d snoozes, the most MaxSnoozes allows", job.Snoozes)
		return c.failJob(ctx, tx, now, job, Fail, reason, fencedNote(r.tries), nil)
	}
	delay := clockrng.ClampDuration(r.Snooze)
	next, err := tx.SnoozeJob(ctx, worker, job.ID, clockrng.NewULID(now, c.idRand), delay)
	if errors.Is(err, store.ErrFenced) {
		e := c.note(EventResultFenced, worker, now)
		e.Job, e.Decision, e.Reason = job, Snooze, fencedNote(r.tries)
		return nil
	}
	if err != nil {
		return fmt.Errorf("snooze job %s: %w", job.ID, err)
	}
	snoozed := job
	snoozed.Status, snoozed.CompletedAt, snoozed.NextAttemptID = store.Snoozed, now, next.ID
	e := c.note(EventResultRecorded, worker, now)
	e.Job, e.Decision = snoozed, Snooze
	e = c.note(EventJobSnoozed, worker, now)
	e.Job, e.Next, e.Delay = snoozed, &next, delay
	return nil
}
