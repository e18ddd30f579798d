package props

import (
	"cmp"
	"fmt"
	"time"
)

// Property 38, retention: the leader's housekeeping deletes a job's row
// only once it ended more than Params.JobRetention before the commit's
// store time, and a worker's row only once the worker shut down more than
// Params.WorkerRetention before it; one pass deletes at most
// Params.CleanupBatch job rows. A row's end is its completion, failure or
// cancellation time, the first of those set; a row with none is never old
// enough. Deletions in an operator's commit (one of no worker) are not
// retention and are not judged here. A zero setting is not checked: a
// live history does not know the workers' settings.

// retainedJob checks a terminal row deleted in commit e, and counts it.
func (c *Checker) retainedJob(e *Event, r *JobRow, sc *commitScope) {
	if e.Worker.IsZero() || !r.Status.Terminal() {
		return // an unended row's deletion is property 0's
	}
	sc.retained++
	if c.params.JobRetention <= 0 {
		return
	}
	end := cmp.Or(r.CompletedAt, r.FailedAt, r.CancelledAt) // rows' times are normalized: zero is time.Time{}
	if !oldEnough(e.Time, end, c.params.JobRetention) {
		c.report(Retention, fmt.Sprintf("job %s deleted by %s at %s: it ended at %s, within the retention of %v",
			r.ID, e.Worker, formatTime(e.Time), formatTime(end), c.params.JobRetention), withJobs(*r))
	}
}

// retainedWorker checks a worker's row deleted in commit e.
func (c *Checker) retainedWorker(e *Event, r *WorkerRow) {
	if c.params.WorkerRetention <= 0 || e.Worker.IsZero() || r.ShutdownAt.IsZero() {
		return // a live worker's deletion is property 6's
	}
	if !oldEnough(e.Time, r.ShutdownAt, c.params.WorkerRetention) {
		c.report(Retention, fmt.Sprintf("worker %s deleted by %s at %s: it shut down at %s, within the retention of %v",
			r.ID, e.Worker, formatTime(e.Time), formatTime(r.ShutdownAt), c.params.WorkerRetention), withWorkers(*r))
	}
}

// checkRetentionBatch checks how many job rows commit e's retention
// deleted.
func (c *Checker) checkRetentionBatch(e *Event, deleted int) {
	if c.params.CleanupBatch > 0 && deleted > c.params.CleanupBatch {
		c.report(Retention, fmt.Sprintf("%s deleted %d ended jobs in one pass, more than its batch of %d",
			e.Worker, deleted, c.params.CleanupBatch))
	}
}

// oldEnough reports whether a row that ended at end (zero: never) may be
// deleted at now under a retention period: it ended before now - period,
// both counted in the microseconds the stores keep.
func oldEnough(now, end time.Time, period time.Duration) bool {
	return !end.IsZero() && end.Before(now.Truncate(time.Microsecond).Add(-period.Truncate(time.Microsecond)))
}
