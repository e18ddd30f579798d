package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// ReasonShutdown is the failed_reason of a job released at shutdown.
const ReasonShutdown = "worker shut down"

// recordResults writes every pending result in tx, ordered by the worker
// id that reserved the job and then by job id: successes in one
// CompleteJobs per worker id (almost always one, the current id), failures
// one by one with their retries. A fenced result is reported, never an
// error. It sorts c.pending in place.
func (c *Core) recordResults(ctx context.Context, tx store.Tx, now time.Time) error {
	results := c.pending
	slices.SortFunc(results, func(a, b pendingResult) int {
		if n := a.local.worker.Compare(b.local.worker); n != 0 {
			return n
		}
		return a.JobID.Compare(b.JobID)
	})
	for start := 0; start < len(results); {
		end := start + 1
		for end < len(results) && results[end].local.worker == results[start].local.worker {
			end++
		}
		if err := c.completeAll(ctx, tx, now, results[start].local.worker, results[start:end]); err != nil {
			return err
		}
		start = end
	}
	for _, r := range results {
		if r.Decision == Succeed {
			continue
		}
		if err := c.failJob(ctx, tx, now, r.local, r.Decision, r.Reason, fencedNote(r.tries)); err != nil {
			return err
		}
	}
	return nil
}

// completeAll marks the successes among results, all reserved by worker,
// completed in one statement.
func (c *Core) completeAll(ctx context.Context, tx store.Tx, now time.Time, worker ulid.ULID, results []pendingResult) error {
	ids := make([]ulid.ULID, 0, len(results))
	for _, r := range results {
		if r.Decision == Succeed {
			ids = append(ids, r.JobID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	fenced, err := tx.CompleteJobs(ctx, worker, ids)
	if err != nil {
		return fmt.Errorf("complete %d jobs of worker %s: %w", len(ids), worker, err)
	}
	for _, r := range results {
		if r.Decision != Succeed {
			continue
		}
		e := Event{Worker: worker, StoreTime: now, Job: r.local.job, Decision: Succeed}
		if slices.Contains(fenced, r.JobID) {
			e.Kind, e.Reason = EventResultFenced, fencedNote(r.tries)
		} else {
			e.Kind = EventResultRecorded
			e.Job.Status, e.Job.CompletedAt = store.Completed, now
		}
		c.note(e)
	}
	return nil
}

// failJob marks a job failed with reason and then retries or abandons it.
func (c *Core) failJob(ctx context.Context, tx store.Tx, now time.Time, lj localJob, d Decision, reason, fencedReason string) error {
	err := tx.FailJob(ctx, lj.worker, lj.job.ID, reason)
	if errors.Is(err, store.ErrFenced) {
		c.note(Event{Kind: EventResultFenced, Worker: lj.worker, StoreTime: now, Job: lj.job, Decision: d, Reason: fencedReason})
		return nil
	}
	if err != nil {
		return err
	}
	failed := lj.job
	failed.Status, failed.FailedAt, failed.FailedReason = store.Failed, now, reason
	c.note(Event{Kind: EventResultRecorded, Worker: lj.worker, StoreTime: now, Job: failed, Decision: d, Reason: reason})
	return c.retryOrAbandon(ctx, tx, now, lj.worker, failed, d)
}

// retryOrAbandon schedules the next attempt of a failed or lost row while
// the decision allows it and attempts remain.
func (c *Core) retryOrAbandon(ctx context.Context, tx store.Tx, now time.Time, worker ulid.ULID, job store.Job, d Decision) error {
	exhausted := job.Attempt >= c.cfg.MaxRetries
	if mutant.On(mutant.RetryAtMax) {
		exhausted = job.Attempt > c.cfg.MaxRetries
	}
	if d != Retry || exhausted {
		reason := "the handler decided to fail"
		if d == Retry {
			reason = fmt.Sprintf("attempt %d reached MaxRetries %d", job.Attempt, c.cfg.MaxRetries)
		}
		c.note(Event{Kind: EventRetryAbandoned, Worker: worker, StoreTime: now, Job: job, Decision: d, Reason: reason})
		return nil
	}
	delay := c.cfg.Backoff.Delay(job.Attempt, c.backoffRand)
	next, err := tx.ScheduleRetry(ctx, job.ID, clockrng.NewULID(now, c.idRand), delay)
	if err != nil {
		return fmt.Errorf("schedule retry of job %s: %w", job.ID, err)
	}
	c.note(Event{Kind: EventRetryScheduled, Worker: worker, StoreTime: now, Job: job, Next: next, Delay: delay, Decision: d})
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
