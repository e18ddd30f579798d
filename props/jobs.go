package props

import (
	"fmt"
	"slices"

	"github.com/oklog/ulid/v2"
)

// jobChange checks one jobs row change against the row's lifecycle and
// applies it:
//
//	insert -> scheduled | available
//	scheduled -> available (promotion, a leader duty) | cancelled
//	available -> running | cancelled
//	running -> completed | failed | snoozed (by its own worker) | lost (rescue) | cancelled
//	failed | lost | snoozed: only next_attempt_id may be set, once
//	terminal -> deleted (retention, a leader duty; or an operator's DeleteJob)
//	running -> deleted (its completion, on a queue without history)
func (c *Checker) jobChange(e *Event, before, after *JobRow, sc *commitScope) {
	id := rowID(before, after, func(r *JobRow) ulid.ULID { return r.ID })
	st := c.jobs[id]
	switch {
	case before == nil && st != nil:
		c.report(WellFormed, fmt.Sprintf("job %s inserted again", id), withJobs(st.row, *after))
	case before != nil && st != nil && st.row != *before:
		c.report(WellFormed, fmt.Sprintf("job %s changed from a row the history never had", id), withJobs(st.row, *before))
	}
	switch {
	case after == nil && before.Status == Running && e.Worker != (ulid.ULID{}):
		c.completionDeleted(e, before, sc)
	case after == nil:
		c.jobDeleted(before, sc)
		c.retainedJob(e, before, sc)
	case before == nil:
		c.jobInserted(after, sc)
	default:
		c.jobUpdated(e, before, after, sc)
	}
	if after == nil {
		c.noteDeleted(id, sc)
	}
	c.applyJob(id, before, after)
}

// jobInserted checks a new row: a new attempt starts waiting, and within
// the retry bound.
func (c *Checker) jobInserted(r *JobRow, sc *commitScope) {
	sc.inserted = append(sc.inserted, r.ID)
	if r.Status != Scheduled && r.Status != Available && !c.insertedSettled(r) {
		c.report(WellFormed, fmt.Sprintf("job %s inserted %s", r.ID, r.Status), withJobs(*r))
	}
	if r.Output != "" {
		c.report(RecordedOutput, fmt.Sprintf("job %s inserted with output %q", r.ID, r.Output), withJobs(*r))
	}
	if r.Attempt >= c.bound(*r) && !slices.Contains(sc.redriven, r.ID) {
		c.report(RetryBounds, fmt.Sprintf("job %s is attempt %d, beyond %s", r.ID, r.Attempt, c.boundName(*r)), withJobs(*r))
	}
}

// jobDeleted checks a deleted row: only terminal rows are deleted, by
// retention (a leader duty) or by an operator (a commit of no worker).
func (c *Checker) jobDeleted(r *JobRow, sc *commitScope) {
	sc.leader("deleted job", r.ID, "")
	if !r.Status.Terminal() {
		c.report(WellFormed, fmt.Sprintf("job %s deleted while %s", r.ID, r.Status), withJobs(*r))
	}
}

// noteDeleted keeps a deleted row for the commit's check that no parent a
// row waits for was deleted (checkParentsDeleted), while any row waits.
func (c *Checker) noteDeleted(id ulid.ULID, sc *commitScope) {
	if len(c.deps.parents) > 0 {
		sc.deleted = append(sc.deleted, id)
	}
}

// chainChanged reports a row whose link to its next attempt changed:
// set twice, or cut by the deletion of the next attempt while the row
// stays, which leaves it looking ended for good (its batch would count
// it again; it would halt its sequence).
func (c *Checker) chainChanged(b, a *JobRow) {
	if a.NextAttemptID == (ulid.ULID{}) {
		c.report(RetryBounds, fmt.Sprintf("job %s lost its link to next attempt %s, deleted before it", a.ID, b.NextAttemptID), withJobs(*b, *a))
		return
	}
	c.report(RetryBounds, fmt.Sprintf("job %s got a second next attempt %s (had %s)", a.ID, a.NextAttemptID, b.NextAttemptID), withJobs(*b, *a))
}

// jobUpdated checks a row that changed in place.
func (c *Checker) jobUpdated(e *Event, b, a *JobRow, sc *commitScope) {
	c.checkOutput(b, a)
	c.checkDeadLettered(b, a)
	if b.NextAttemptID == (ulid.ULID{}) && a.NextAttemptID != (ulid.ULID{}) {
		sc.links = append(sc.links, link{prev: a.ID, next: a.NextAttemptID})
	} else if b.NextAttemptID != (ulid.ULID{}) && a.NextAttemptID != b.NextAttemptID {
		c.chainChanged(b, a)
	}
	if b.Status == a.Status {
		if a.Status == Running && a.StartedBy != b.StartedBy {
			c.report(SingleExecution, fmt.Sprintf("running job %s moved from worker %s to %s", a.ID, b.StartedBy, a.StartedBy), withJobs(*b, *a))
		}
		return
	}
	if b.Status.Terminal() {
		p := SingleExecution
		if b.Status == Cancelled && a.Status == Completed {
			p = JobCancel // a result of the cancelled execution recorded
		}
		c.report(p, fmt.Sprintf("finished job %s changed from %s to %s", a.ID, b.Status, a.Status), withJobs(*b, *a))
		return
	}
	switch {
	case b.Status == Awaiting && a.Status == Running: // released and reserved in one transaction
		sc.settled = append(sc.settled, a.ID)
		sc.reserved = append(sc.reserved, a.ID)
		c.reserved(e, b, a)
	case b.Status == Awaiting:
		sc.settled = append(sc.settled, a.ID)
	case a.Status == Cancelled:
	case b.Status == Scheduled && a.Status == Available:
		c.promoted(e, b, a, sc)
	case b.Status == Available && a.Status == Running:
		sc.reserved = append(sc.reserved, a.ID)
		c.reserved(e, b, a)
	case b.Status == Running && (a.Status == Completed || a.Status == Failed || a.Status == Snoozed):
		if e.Worker != (ulid.ULID{}) && e.Worker != b.StartedBy {
			c.report(SingleExecution, fmt.Sprintf("worker %s recorded a result for job %s, which runs under %s (not fenced)",
				e.Worker, a.ID, b.StartedBy), withJobs(*b, *a))
		}
		c.released(e, b, a)
		if a.Status != Completed {
			sc.failed = append(sc.failed, a.ID)
		}
	case b.Status == Running && a.Status == Lost:
		c.rescued(b, a, sc)
	default:
		c.report(WellFormed, fmt.Sprintf("job %s went from %s to %s", a.ID, b.Status, a.Status), withJobs(*b, *a))
	}
}

// promoted checks a scheduled row made available: a leader duty, and never
// before its time.
func (c *Checker) promoted(e *Event, b, a *JobRow, sc *commitScope) {
	sc.leader("promoted job", a.ID, "")
	if e.Time.Before(a.ScheduledAt) {
		c.report(RetryBounds, fmt.Sprintf("job %s promoted at %s, before its scheduled_at %s",
			a.ID, formatTime(e.Time), formatTime(a.ScheduledAt)), withJobs(*b, *a))
	}
}

// reserved checks a row that started running: not before its scheduled_at,
// and not by a worker whose graceful shutdown began.
func (c *Checker) reserved(e *Event, b, a *JobRow) {
	start := a.StartedAt
	if start.IsZero() {
		start = e.Time
	}
	if start.Before(a.ScheduledAt) {
		c.report(RetryBounds, fmt.Sprintf("attempt %d of job %s started at %s, before its scheduled_at %s",
			a.Attempt, a.ID, formatTime(start), formatTime(a.ScheduledAt)), withJobs(*b, *a))
	}
	if p := c.procOf(a.StartedBy); p != nil && p.shuttingDown {
		c.report(ShutdownDraining, fmt.Sprintf("process %s reserved job %s after its graceful shutdown began", p.name, a.ID), withJobs(*b, *a))
	}
}

// rescued checks a running row marked lost: a leader duty, only for a job
// whose worker was shut down (declared dead) or deleted.
func (c *Checker) rescued(b, a *JobRow, sc *commitScope) {
	sc.leader("rescued job", a.ID, "")
	w, known := c.workers[b.StartedBy]
	if known && w.ShutdownAt.IsZero() {
		c.report(SingleExecution, fmt.Sprintf("job %s rescued while its worker %s is live", a.ID, b.StartedBy), withJobs(*b, *a), withWorkers(w))
	}
}

// applyJob stores the new row and keeps the indexes that depend on status
// in step: rows running per worker, rows a process started and has not
// finished.
func (c *Checker) applyJob(id ulid.ULID, before, after *JobRow) {
	c.queues.indexJob(id, before, after)
	c.passDone.indexScheduled(id, before, after)
	c.partitions.indexKeys(id, before, after)
	c.sequences.index(id, keyed(before), keyed(after))
	c.seqHolders.index(id, holding(before), holding(after))
	c.deps.indexWaiting(id, after)
	c.batches.index(id, before, after)
	if before != nil && before.Status == Running {
		// An emptied set is kept: a worker reserves again soon, and the
		// sets are bounded by the number of workers.
		delete(c.runningBy[before.StartedBy], id)
	}
	st := c.jobs[id]
	if after == nil {
		if st != nil {
			c.forgetStarter(id, st)
			c.dropChainIfTail(id, st)
		}
		delete(c.jobs, id)
		return
	}
	if st == nil {
		st = &jobState{}
		c.jobs[id] = st
	}
	st.row = *after
	if after.Status == Running {
		m := c.runningBy[after.StartedBy]
		if m == nil {
			m = make(map[ulid.ULID]struct{})
			c.runningBy[after.StartedBy] = m
		}
		m[id] = struct{}{}
	}
	if after.Status.Terminal() {
		c.forgetStarter(id, st)
	}
}

// forgetStarter drops a row from the unfinished set of the process that
// started it.
func (c *Checker) forgetStarter(id ulid.ULID, st *jobState) {
	if st.proc == "" {
		return
	}
	if p := c.procs[st.proc]; p != nil {
		delete(p.started, id)
	}
	st.proc = ""
}

// decisionHonoured checks, at the end of the commit in which its worker
// failed or snoozed it, a row whose handler's decision reached the history:
// a Retry with attempts left by the job's bound got its next attempt in
// that transaction (property 2; a Fail that gets one is caught by
// retryLink), and a Snooze its next row or, past MaxSnoozes, a failure
// (property 15). A release at shutdown is not the handler's decision.
func (c *Checker) decisionHonoured(id ulid.ULID) {
	st := c.jobs[id]
	if st == nil || st.row.FailedReason == ReleaseReason && st.row.Status == Failed {
		return
	}
	r := st.row
	if st.decided == Snooze || r.Status == Snoozed {
		c.snoozeHonoured(st)
		return
	}
	if bound := c.bound(r); r.Status == Failed && st.decided == Retry && r.NextAttemptID == (ulid.ULID{}) && r.Attempt+1 < bound {
		c.report(RetryBounds, fmt.Sprintf("attempt %d of job %s failed with a Retry decision and retries left, but got no next attempt in that transaction",
			r.Attempt, id), withJobs(r))
	}
}
