package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/failreason"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// ReasonShutdown is the failed_reason of a job released at shutdown.
const ReasonShutdown = failreason.Shutdown

// recordResults writes every pending result in tx: the successes with one
// CompleteJobs per worker id that reserved them (almost always one, the
// current id), then the failures one by one with their retries. A fenced
// result is reported, never an error.
func (c *Core) recordResults(ctx context.Context, tx store.Tx, now time.Time) error {
	var fenced []ulid.ULID
	for _, g := range c.completions() {
		f, err := tx.CompleteJobs(ctx, g)
		if err != nil {
			return fmt.Errorf("complete %d jobs of worker %s: %w", len(g.IDs), g.Worker, err)
		}
		fenced = append(fenced, f...)
	}
	c.noteCompletions(now, fenced)
	return c.recordFailures(ctx, tx, now)
}

// completions groups the pending successes by the worker id that reserved
// them, in worker id order and then job id order.
func (c *Core) completions() []store.Completion {
	slices.SortFunc(c.pending, func(a, b pendingResult) int {
		if n := a.job.StartedBy.Compare(b.job.StartedBy); n != 0 {
			return n
		}
		return a.JobID.Compare(b.JobID)
	})
	var groups []store.Completion
	for _, r := range c.pending {
		if r.Decision != Succeed {
			continue
		}
		if n := len(groups); n == 0 || groups[n-1].Worker != r.job.StartedBy {
			groups = append(groups, store.Completion{Worker: r.job.StartedBy})
		}
		g := &groups[len(groups)-1]
		if len(g.IDs) > 0 && mutant.On(mutant.OutputDropped) {
			r.Output = nil
		}
		if r.Output != nil && g.Outputs == nil {
			g.Outputs = make([]json.RawMessage, len(g.IDs), cap(g.IDs)+1)
		}
		g.IDs = append(g.IDs, r.JobID)
		if g.Outputs != nil {
			g.Outputs = append(g.Outputs, r.Output)
		}
	}
	return groups
}

// noteCompletions notes what writing the pending successes did, given the
// ids that were fenced off.
func (c *Core) noteCompletions(now time.Time, fenced []ulid.ULID) {
	for _, r := range c.pending {
		if r.Decision != Succeed {
			continue
		}
		if slices.Contains(fenced, r.JobID) {
			e := c.note(EventResultFenced, r.job.StartedBy, now)
			e.Job, e.Decision, e.Reason = *r.job, Succeed, fencedNote(r.tries)
			continue
		}
		e := c.note(EventResultRecorded, r.job.StartedBy, now)
		e.Job, e.Decision = *r.job, Succeed
		e.Job.Status, e.Job.CompletedAt = store.Completed, now
	}
}

// recordFailures writes the pending failures, each with its retry, and
// the snoozes.
func (c *Core) recordFailures(ctx context.Context, tx store.Tx, now time.Time) error {
	for _, r := range c.pending {
		var err error
		switch r.Decision {
		case Succeed:
			continue
		case Snooze:
			err = c.snoozeJob(ctx, tx, now, r)
		default:
			err = c.failJob(ctx, tx, now, *r.job, r.Decision, r.Reason, fencedNote(r.tries), r.cause())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// settled forgets the pending results whose write committed (successes or
// failures) and counts one more unseen try for the others when the write
// failed.
func (c *Core) settled(successes bool, err error) {
	if err == nil {
		c.pending = slices.DeleteFunc(c.pending, func(r pendingResult) bool { return (r.Decision == Succeed) == successes })
		return
	}
	for i := range c.pending {
		if (c.pending[i].Decision == Succeed) == successes {
			c.pending[i].tries++
		}
	}
}

// failJob marks a job failed with reason, under the worker id that
// reserved it, and then retries or abandons it; cause is the error its
// retry's delay is decided on.
func (c *Core) failJob(ctx context.Context, tx store.Tx, now time.Time, job store.Job, d Decision, reason, fencedReason string, cause error) error {
	worker := job.StartedBy
	err := tx.FailJob(ctx, worker, job.ID, reason)
	if errors.Is(err, store.ErrFenced) {
		e := c.note(EventResultFenced, worker, now)
		e.Job, e.Decision, e.Reason = job, d, fencedReason
		return nil
	}
	if err != nil {
		return err
	}
	failed := job
	failed.Status, failed.FailedAt, failed.FailedReason = store.Failed, now, reason
	e := c.note(EventResultRecorded, worker, now)
	e.Job, e.Decision, e.Reason = failed, d, reason
	return c.retryOrAbandon(ctx, tx, now, worker, failed, d, cause)
}

// retryOrAbandon schedules the next attempt of a failed or lost row while
// the decision allows it and attempts remain (the job's own bound, else
// its queue's, else MaxRetries+1), after the delay its queue's policy
// gives for cause.
func (c *Core) retryOrAbandon(ctx context.Context, tx store.Tx, now time.Time, worker ulid.ULID, job store.Job, d Decision, cause error) error {
	exhausted, why := c.exhausted(job)
	if mutant.On(mutant.FailRetried) {
		d = Retry
	}
	if mutant.On(mutant.DeadLetterRetried) {
		if _, err := tx.DeadLetterJob(ctx, job.ID); err != nil {
			return fmt.Errorf("dead-letter job %s: %w", job.ID, err)
		}
	}
	if d != Retry || exhausted {
		reason := "the handler decided to fail"
		if d == Retry {
			reason = why
		}
		e := c.note(EventRetryAbandoned, worker, now)
		e.Job, e.Decision, e.Reason = job, d, reason
		// Failed for good: to its queue's dead-letter queue, if it has one.
		if _, err := tx.DeadLetterJob(ctx, job.ID); err != nil {
			return fmt.Errorf("dead-letter job %s: %w", job.ID, err)
		}
		return nil
	}
	delay := c.retryDelay(job, cause)
	next, err := tx.ScheduleRetry(ctx, job.ID, clockrng.NewULID(now, c.idRand), delay)
	if err != nil {
		return fmt.Errorf("schedule retry of job %s: %w", job.ID, err)
	}
	e := c.note(EventRetryScheduled, worker, now)
	e.Job, e.Next, e.Delay, e.Decision = job, &next, delay, d
	return nil
}

// fencedNote explains a fenced result: after an unseen commit the first
// try may have recorded it.
func fencedNote(tries int) string {
	if tries > 0 {
		return fmt.Sprintf("an earlier try whose commit was not seen may have recorded it (%d tries)", tries)
	}
	return "the job no longer runs under this worker"
}
