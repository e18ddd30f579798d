package props

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/failreason"
)

// execStarted checks a handler that began running (properties 5 and 6): the
// row was reserved by the starting worker (so the reserve committed before
// the start), it is not already executing, no other
// attempt of its job executes elsewhere unless that attempt's worker was
// declared dead, and the process stays within MaxConcurrent.
func (c *Checker) execStarted(e *Event) {
	p := c.proc(e)
	x := &execution{start: *e, proc: p.name}
	if st := c.jobs[e.Job]; st == nil {
		c.report(SingleExecution, fmt.Sprintf("process %s started job %s, which has no row", p.name, e.Job))
	} else {
		c.checkStart(e, p, st)
		x.chain = c.chains[st.chain]
		if st.exec == nil {
			st.exec = x
		}
		if !st.row.Status.Terminal() {
			st.proc = p.name
			p.started[e.Job] = struct{}{}
		}
	}
	if x.chain != nil {
		x.chain.open = append(x.chain.open, x)
	}
	if old := p.open[e.Job]; old != nil {
		c.closeExec(old)
	}
	p.open[e.Job] = x
	if limit := c.params.MaxConcurrent; limit > 0 && len(p.open) > limit {
		c.report(ConcurrencyCap, fmt.Sprintf("process %s runs %d jobs at once, more than MaxConcurrent %d", p.name, len(p.open), limit),
			withEvents(p.openStarts()...))
	}
}

// checkStart checks the row and the job's other attempts as a handler
// starts on process p.
func (c *Checker) checkStart(e *Event, p *procState, st *jobState) {
	r := st.row
	// The reserve must have committed: the row runs under the worker. It
	// may already be lost (the worker was declared dead meanwhile) or
	// cancelled: its result will be fenced off, and another attempt may
	// run beside it only because the worker was declared dead.
	if r.StartedBy != e.Worker || (r.Status != Running && r.Status != Lost && r.Status != Cancelled) {
		c.report(SingleExecution, fmt.Sprintf("worker %s started job %s, whose row is %s under %s",
			e.Worker, e.Job, r.Status, formatID(r.StartedBy)), withJobs(r))
	}
	if r.Status == Lost && c.params.SerialTransactions {
		// With one transaction at a time, a start follows its worker's
		// last commit at once: a row rescued before it was read before a
		// failed call, on which nothing may start.
		c.report(SingleExecution, fmt.Sprintf("worker %s started job %s, which a leader had already rescued as lost",
			e.Worker, e.Job), withJobs(r))
	}
	if st.exec != nil {
		c.report(SingleExecution, fmt.Sprintf("job %s started on process %s while it executes on process %s",
			e.Job, p.name, st.exec.proc), withJobs(r), withEvents(st.exec.start))
	}
	ch := c.chains[st.chain]
	if ch == nil {
		return
	}
	if c.orphaned(e.Job, e.Worker) {
		return
	}
	for _, other := range ch.open {
		if other.start.Job != e.Job && !c.orphaned(other.start.Job, other.start.Worker) {
			c.report(SingleExecution, fmt.Sprintf("attempt %d (job %s) started on process %s while attempt %s of the same job executes on process %s, whose worker still holds it",
				r.Attempt, e.Job, p.name, other.start.Job, other.proc), withJobs(r), withEvents(other.start))
		}
	}
}

// orphaned reports whether an execution of job by worker has lost its claim
// on the row, so that another attempt of the job may run beside it: the row
// no longer runs under the worker (rescued as lost, or given up at the
// drain deadline while its handler ignored cancellation), or the worker row
// was shut down (declared dead) or deleted. Its result will be fenced off.
func (c *Checker) orphaned(job, worker ulid.ULID) bool {
	if st := c.jobs[job]; st == nil || st.row.Status != Running || st.row.StartedBy != worker {
		return true
	}
	return !c.liveWorker(worker)
}

// execEnded closes an execution and remembers its decision if the row still
// ran under its worker, so that Finish can tell a job failed by decision
// from one whose retry went missing.
func (c *Checker) execEnded(e *Event) {
	x := c.openExec(e, "ended")
	if x == nil {
		return
	}
	c.closeExec(x)
	switch e.Decision {
	case Succeed, Retry, Fail, Snooze:
	default:
		c.report(WellFormed, fmt.Sprintf("job %s ended with unknown decision %q", e.Job, e.Decision))
	}
	c.checkDecision(e)
	st := c.jobs[e.Job]
	if st == nil || st.row.StartedBy != x.start.Worker {
		return
	}
	// A row that no longer runs here may be gone with every row of its
	// callback, and its batch with them.
	if st.row.Status == Running && strings.Contains(e.Reason, failreason.BatchGone) {
		c.report(BatchOrder, fmt.Sprintf("job %s, a batch's callback, ran without its batch: %s", e.Job, e.Reason), withJobs(st.row))
	}
	if st.row.Status == Running || failedUnseen(st, e) {
		st.decided, st.output, st.snooze = e.Decision, e.Output, e.Snooze
	}
}

// failedUnseen reports whether the row already failed, under the
// execution's worker, with the reason its handler's Fail gave: a try whose
// commit the worker did not see recorded it (a lost answer, a connection
// cut or silent), and a live worker logs the decision with its later try,
// which the store fenced off.
func failedUnseen(st *jobState, e *Event) bool {
	return e.Decision == Fail && st.decided == "" && st.row.Status == Failed && st.row.FailedReason == e.Reason
}

// openExec returns the execution of the event's job on its process. When
// there is none, the history is ill-formed: it reports that the job's
// handler (what: "ended", ...) where it was not executing, and returns nil.
func (c *Checker) openExec(e *Event, what string) *execution {
	p := c.proc(e)
	x := p.open[e.Job]
	if x == nil {
		c.report(WellFormed, fmt.Sprintf("job %s %s on process %s, where it was not executing", e.Job, what, p.name))
	}
	return x
}

// PanicReason and UndecodableReason begin the reason a worker records for a
// handler that panicked and for a payload that did not decode.
const (
	PanicReason       = "handler panicked: "
	UndecodableReason = "payload did not decode"
)

// checkDecision checks that a handler's outcome got the decision the
// worker promises (property 2): a panic is retried, an undecodable payload fails
// at once.
func (c *Checker) checkDecision(e *Event) {
	want := Decision("")
	switch {
	case strings.HasPrefix(e.Reason, PanicReason):
		want = Retry
	case strings.HasPrefix(e.Reason, UndecodableReason):
		want = Fail
	}
	if want != "" && e.Decision != want {
		c.report(RetryBounds, fmt.Sprintf("job %s ended with %q and decision %s, want %s", e.Job, e.Reason, e.Decision, want))
	}
}

// closeExec removes an execution from every index that holds it.
func (c *Checker) closeExec(x *execution) {
	if p := c.procs[x.proc]; p != nil && p.open[x.start.Job] == x {
		delete(p.open, x.start.Job)
	}
	if st := c.jobs[x.start.Job]; st != nil && st.exec == x {
		st.exec = nil
	}
	if x.chain != nil {
		x.chain.open = slices.DeleteFunc(x.chain.open, func(o *execution) bool { return o == x })
	}
}

// resultFenced checks that a refused result was refused rightly: the row
// no longer ran under the worker. (That a result of a fenced-off worker
// never changes the row is checked on the commits.)
func (c *Checker) resultFenced(e *Event) {
	if st := c.jobs[e.Job]; st != nil && st.row.Status == Running && st.row.StartedBy == e.Worker {
		c.report(SingleExecution, fmt.Sprintf("the result of worker %s for job %s was fenced off though the row still runs under it", e.Worker, e.Job),
			withJobs(st.row))
	}
}

// openStarts returns the start events of the process's executions in
// progress, in job id order.
func (p *procState) openStarts() []Event {
	ids := slices.SortedFunc(maps.Keys(p.open), ulid.ULID.Compare)
	out := make([]Event, len(ids))
	for i, id := range ids {
		out[i] = p.open[id].start
	}
	return out
}
