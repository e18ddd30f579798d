package props

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 38, retention: the leader's housekeeping deletes a job's row
// only once it ended more than Params.JobRetention before the commit's
// store time, and a worker's row only once the worker shut down more than
// Params.WorkerRetention before it; one pass deletes at most
// Params.CleanupBatch job rows. And it deletes every row it may: a pass
// that applied retention (DutiesEnded with a Limit) and deleted fewer job
// rows than its batch leaves no row past its period but the ones every
// store keeps (a job that halts its sequence, that a waiting row waits
// for, that its batch has not counted, that an earlier attempt names),
// and the worker's pass after a full batch applies retention again. A
// row's end is its completion, failure or
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
	c.retainedNext(e.Worker, r.NextAttemptID)
	if c.params.JobRetention <= 0 {
		return
	}
	end := endOf(r) // rows' times are normalized: zero is time.Time{}
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

// retentionState is what property 38 keeps between a leader pass's
// commit and its end.
type retentionState struct {
	// fullBatch: the workers whose last retention pass deleted a full
	// batch, so that their next pass owes another.
	fullBatch map[ulid.ULID]bool
	// freed: retries whose earlier attempt a worker's retention deleted
	// (-> that worker), judged as that attempt still named them until the
	// worker's pass ends: the store judged the pass's rows as they were.
	freed map[ulid.ULID]ulid.ULID
	lag   passLag // rows a pass left, in CommitOrder owed by the next one
	kept  int     // old rows complete passes left because stores keep them
	// named and awaited are scratch sets of checkRetentionPass.
	named, awaited map[ulid.ULID]bool
}

// retainedNext notes that worker w's retention deleted a row whose next
// attempt is next (zero: none).
func (c *Checker) retainedNext(w, next ulid.ULID) {
	if next.IsZero() {
		return
	}
	if c.retention.freed == nil {
		c.retention.freed = map[ulid.ULID]ulid.ULID{}
	}
	c.retention.freed[next] = w
}

// checkRetentionPass judges the end of leader pass e that applied the
// retention periods (e.Limit is its batch): a pass that deleted a full
// batch owes the worker's next pass another; one that deleted less left
// no row it could delete.
func (c *Checker) checkRetentionPass(e *Event) {
	r := &c.retention
	defer maps.DeleteFunc(r.freed, func(_, w ulid.ULID) bool { return w == e.Worker })
	if r.fullBatch[e.Worker] && e.Limit == 0 {
		c.report(Retention, fmt.Sprintf("leader pass of worker %s at %s applied no retention after its last deleted a full batch",
			e.Worker, formatTime(e.Time)))
	}
	delete(r.fullBatch, e.Worker)
	switch {
	case e.Limit == 0:
		return
	case e.Deleted >= e.Limit:
		if r.fullBatch == nil {
			r.fullBatch = map[ulid.ULID]bool{}
		}
		r.fullBatch[e.Worker] = true
		return
	}
	left := c.retentionLeft(e)
	late := r.lag.late(slices.Values(left), nil, c.params.CommitOrder)
	if len(late) == 0 {
		return
	}
	id := slices.MinFunc(late, ulid.ULID.Compare)
	if w, ok := c.workers[id]; ok {
		c.report(Retention, fmt.Sprintf("leader pass of worker %s at %s applied retention and left worker %s, shut down at %s, more than %v before",
			e.Worker, formatTime(e.Time), id, formatTime(w.ShutdownAt), c.params.WorkerRetention), withWorkers(w))
		return
	}
	row := c.jobs[id].row
	c.report(Retention, fmt.Sprintf("leader pass of worker %s at %s deleted %d of its batch of %d and left job %s, which ended at %s, more than %v before",
		e.Worker, formatTime(e.Time), e.Deleted, e.Limit, id, formatTime(endOf(&row)), c.params.JobRetention), withJobs(row))
}

// retentionLeft returns the rows pass e's retention should have deleted:
// workers shut down more than WorkerRetention before it, and ended jobs
// older than JobRetention that nothing keeps.
func (c *Checker) retentionLeft(e *Event) []ulid.ULID {
	var left []ulid.ULID
	if c.params.WorkerRetention > 0 {
		for id, w := range c.workers {
			if oldEnough(e.Time, w.ShutdownAt, c.params.WorkerRetention) {
				left = append(left, id)
			}
		}
	}
	if c.params.JobRetention <= 0 {
		return left
	}
	var old []*JobRow
	for _, st := range c.jobs {
		if st.row.Status.Terminal() && oldEnough(e.Time, endOf(&st.row), c.params.JobRetention) {
			old = append(old, &st.row)
		}
	}
	if len(old) == 0 { // as after most passes: what keeps rows is not needed
		return left
	}
	c.indexKept()
	for _, r := range old {
		if c.retentionKeeps(e.Worker, r) {
			c.retention.kept++
		} else {
			left = append(left, r.ID)
		}
	}
	return left
}

// RetentionKept returns how many old rows the leader passes that applied
// retention left because every store keeps them (a row left by several
// passes counts once for each).
func (c *Checker) RetentionKept() int { return c.retention.kept }

// indexKept fills the scratch sets retentionKeeps reads: the rows an
// attempt names as its next, and those a waiting row waits for.
func (c *Checker) indexKept() {
	r := &c.retention
	if r.named == nil {
		r.named, r.awaited = map[ulid.ULID]bool{}, map[ulid.ULID]bool{}
	}
	clear(r.named)
	clear(r.awaited)
	for _, st := range c.jobs {
		if !st.row.NextAttemptID.IsZero() {
			r.named[st.row.NextAttemptID] = true
		}
		if st.row.Status == Awaiting {
			for p := range parents(st.row.Parents) {
				r.awaited[p] = true
			}
		}
	}
}

// retentionKeeps reports whether retention must leave ended row j, as
// both stores do: it halts its sequence, a waiting row
// waits for it, its batch has not counted it, or an earlier attempt names
// it (also one worker w's pass deleted, which still named it then).
func (c *Checker) retentionKeeps(w ulid.ULID, j *JobRow) bool {
	r := &c.retention
	freedBy, freed := r.freed[j.ID]
	return haltsSequence(j) || r.awaited[j.ID] || uncounted(j) || r.named[j.ID] || freed && freedBy == w
}

// uncounted reports whether member row j ended for good and its batch
// has not counted it yet.
func uncounted(j *JobRow) bool {
	if j.Batch.IsZero() || j.BatchCounted {
		return false
	}
	return j.Status == Completed || j.Status == Cancelled || (j.Status == Failed || j.Status == Lost) && j.NextAttemptID.IsZero()
}

// endOf is when row j ended: the first set of its completion, failure and
// cancellation times (zero: it has not).
func endOf(j *JobRow) time.Time { return cmp.Or(j.CompletedAt, j.FailedAt, j.CancelledAt) }
