package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// ReasonShutdown is the failed_reason of a job released at shutdown.
const ReasonShutdown = "worker shut down"

// recordResults writes every pending result in tx, in job id order:
// successes in one CompleteJobs per worker id, failures one by one with
// their retries. A fenced result is reported, never an error.
func (c *Core) recordResults(ctx context.Context, tx store.Tx, now time.Time) error {
	results := slices.Clone(c.pending)
	slices.SortFunc(results, func(a, b pendingResult) int { return a.JobID.Compare(b.JobID) })
	if err := c.completeAll(ctx, tx, now, results); err != nil {
		return err
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

// completeAll marks the successes completed, one statement per worker id
// (almost always one: the current id).
func (c *Core) completeAll(ctx context.Context, tx store.Tx, now time.Time, results []pendingResult) error {
	byWorker := map[ulid.ULID][]pendingResult{}
	for _, r := range results {
		if r.Decision == Succeed {
			byWorker[r.local.worker] = append(byWorker[r.local.worker], r)
		}
	}
	workers := slices.SortedFunc(maps.Keys(byWorker), func(a, b ulid.ULID) int { return a.Compare(b) })
	for _, w := range workers {
		group := byWorker[w]
		ids := make([]ulid.ULID, len(group))
		for i, r := range group {
			ids[i] = r.JobID
		}
		fenced, err := tx.CompleteJobs(ctx, w, ids)
		if err != nil {
			return fmt.Errorf("complete %d jobs of worker %s: %w", len(ids), w, err)
		}
		for _, r := range group {
			e := Event{Worker: w, StoreTime: now, Job: r.local.job, Decision: Succeed}
			if slices.Contains(fenced, r.JobID) {
				e.Kind, e.Reason = EventResultFenced, fencedNote(r.tries)
			} else {
				e.Kind = EventResultRecorded
				e.Job.Status, e.Job.CompletedAt = store.Completed, now
			}
			c.note(e)
		}
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
