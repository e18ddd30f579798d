package props

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 13, job cancel: once a running job's cancel
// commits, no result of its execution is recorded as completed (a
// cancelled row never changes, see jobUpdated), and its worker stops the
// handler as soon as it learns of the cancel: from the notification, or
// from the first cancel check after it. A check (CancelChecked) is judged
// only with Params.SerialTransactions, where every check after the
// cancel's commit sees the cancelled row:
//
//   - it asks about every execution of its process whose row is
//     cancelled and whose context is not: a worker that stops asking
//     about a job it still runs would never stop it;
//   - each such execution's context is cancelled (ExecCancelled) before
//     store time moves on past the check. A process that learns in the
//     same tick that its worker was declared dead registers again before
//     its runner acts, so its pending stops are not judged (a declared
//     dead worker is exempt).
//
// A worker that is stalled, cut off from the store or dead makes no
// check, so nothing is asked of it: the bound in time (within about 1.2
// poll intervals) is the runner's, tested in worker/engine; here the
// simulator's coverage marks show that checks and notifications do stop
// handlers.
//
// Whatever the history, a driver cancels a handler's context this way
// only for a job whose row is cancelled.

// cancelDue is an execution a check found cancelled: its context must be
// cancelled before store time passes at.
type cancelDue struct {
	x     *execution
	at    time.Time
	check Event
}

// execCancelled marks one execution's context cancelled; its row must be
// cancelled.
func (c *Checker) execCancelled(e *Event) {
	x := c.openExec(e, "had its handler cancelled")
	if x == nil {
		return
	}
	x.cancelled = true
	if st := c.jobs[e.Job]; st != nil && st.row.Status != Cancelled {
		c.report(JobCancel, fmt.Sprintf("process %s cancelled the handler of job %s, whose row is %s", x.proc, e.Job, st.row.Status),
			withJobs(st.row), withEvents(x.start))
	}
}

// cancelChecked judges a cancel check of the event's process.
func (c *Checker) cancelChecked(e *Event) {
	p := c.proc(e)
	if !c.params.SerialTransactions {
		return
	}
	// Most checks find no such job: sort only the ones found, for the
	// order of the reports.
	var found []ulid.ULID
	for id, x := range p.open {
		if st := c.jobs[id]; !x.cancelled && st != nil && st.row.Status == Cancelled && st.row.StartedBy == x.start.Worker {
			found = append(found, id)
		}
	}
	slices.SortFunc(found, ulid.ULID.Compare)
	for _, id := range found {
		x, st := p.open[id], c.jobs[id]
		if !slices.Contains(e.Asked, id) {
			c.report(JobCancel, fmt.Sprintf("process %s checked for cancelled jobs without asking about job %s, which it runs and whose row is cancelled",
				p.name, id), withJobs(st.row), withEvents(x.start))
			continue
		}
		c.cancelsDue = append(c.cancelsDue, cancelDue{x: x, at: e.Time, check: *e})
	}
}

// checkCancelsDue reports, once store time has reached now, every
// execution a check found cancelled before now whose context is still
// not cancelled, and forgets the stops that are settled.
func (c *Checker) checkCancelsDue(now time.Time) {
	if len(c.cancelsDue) == 0 { // most steps: spare the closure
		return
	}
	c.cancelsDue = slices.DeleteFunc(c.cancelsDue, func(d cancelDue) bool {
		if d.x.cancelled || !c.isOpen(d.x) {
			return true
		}
		if !now.After(d.at) {
			return false
		}
		row := JobRow{ID: d.x.start.Job}
		if st := c.jobs[row.ID]; st != nil {
			row = st.row
		}
		c.report(JobCancel, fmt.Sprintf("process %s found job %s cancelled at %s and did not cancel its handler's context before %s",
			d.x.proc, row.ID, formatTime(d.at), formatTime(now)), withJobs(row), withEvents(d.x.start, d.check))
		return true
	})
}

// dropCancelsDue forgets the stops due on process p, whose worker was
// declared dead.
func (c *Checker) dropCancelsDue(p *procState) {
	c.cancelsDue = slices.DeleteFunc(c.cancelsDue, func(d cancelDue) bool { return d.x.proc == p.name })
}

// isOpen reports whether x is still in progress.
func (c *Checker) isOpen(x *execution) bool {
	p := c.procs[x.proc]
	return p != nil && p.open[x.start.Job] == x
}
