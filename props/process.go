package props

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/failreason"
)

// procState is what the checker knows of one worker process. A process
// keeps its name across restarts; the worker id it acts as changes each
// time it registers.
type procState struct {
	name         string
	open         map[ulid.ULID]*execution // executions in progress, by job
	started      map[ulid.ULID]struct{}   // jobs it started whose rows have not ended
	shuttingDown bool
	shutdownAt   time.Time     // when the graceful shutdown began
	stops        stops         // the requests to stop it received
	stalledAt    time.Time     // when its stall in progress began (zero: none)
	paused       time.Duration // the part of its shutdown it spent stalled

	// The drain deadline (property 20): reached at deadlineAt with
	// handlers whose contexts are to be cancelled (cancelDue); the bounds
	// judged once each; the release given up.
	deadlineAt                  time.Time
	cancelDue                   bool
	cancelJudged, releaseJudged bool
	releaseGivenUp              bool
	wait                        wait                // the tick it waits for (property 21, 22)
	owed                        passOwed            // what its next job pass owes its wake-ups (property 22)
	removed                     map[string]*removal // the queues it removed (queueremoval.go)
	tickAt                      time.Time           // its tick in progress began then (property 40)
	tickBeat                    bool                // and that tick's job pass heartbeated
	tickLeased                  bool                // and that tick maintained the lease (property 41)
}

// stops are the requests to stop one process life received.
type stops struct {
	first    string    // the first request's name
	at       time.Time // when the first came
	repeated bool      // the first came again within the repeat window
	second   bool      // another request came: the drain may be given up
}

// procKey names the process an event is about: its Process, else the
// process last seen acting as its Worker, else the worker itself.
func (c *Checker) procKey(e *Event) string {
	if e.Process != "" {
		return e.Process
	}
	if name, ok := c.workerProc[e.Worker]; ok {
		return name
	}
	return "worker " + e.Worker.String()
}

// proc returns the state of the event's process, creating it, and
// remembers which process acts as the event's worker.
func (c *Checker) proc(e *Event) *procState {
	// Most events come from the process and worker of the one before: their
	// state is found, and the worker's process set, already.
	if m := &c.lastProc; m.state != nil && e.Process != "" && e.Process == m.process && e.Worker == m.worker {
		return m.state
	}
	key := c.procKey(e)
	p := c.procs[key]
	if p == nil {
		p = &procState{name: key, open: make(map[ulid.ULID]*execution), started: make(map[ulid.ULID]struct{})}
		c.procs[key] = p
	}
	if e.Worker != (ulid.ULID{}) {
		c.workerProc[e.Worker] = key
	}
	c.lastProc = procMemo{process: e.Process, worker: e.Worker, state: p}
	return p
}

// procMemo is the process proc found last, for the event's process name
// and worker (a memo is valid since procs and workerProc only grow, and
// only proc writes them).
type procMemo struct {
	process string
	worker  ulid.ULID
	state   *procState
}

// procOf returns the process known to act as worker w, or nil.
func (c *Checker) procOf(w ulid.ULID) *procState {
	if name, ok := c.workerProc[w]; ok {
		return c.procs[name]
	}
	return c.procs["worker "+w.String()]
}

// stop ends everything a process had in progress: it crashed or exited.
func (c *Checker) stop(p *procState) {
	for _, x := range p.open {
		c.closeExec(x)
	}
	for id := range p.started {
		if st := c.jobs[id]; st != nil {
			st.proc = ""
		}
	}
	clear(p.started)
	p.shuttingDown, p.stops, p.paused = false, stops{}, 0
	p.cancelDue, p.cancelJudged, p.releaseJudged, p.releaseGivenUp = false, false, false, false
	p.wait = wait{}
	p.removed = nil // a new life reserves from every queue
	p.forgetOwed()
	c.endDutiesOf(p.name)
	c.forgetVacuumClaim(p.name)
}

// crashed ends the process's executions: all in-memory state is lost. An
// execution whose row already failed under its worker committed its result
// but died before logging its decision: property 4 cannot judge that row.
func (c *Checker) crashed(e *Event) {
	p := c.proc(e)
	for _, x := range p.open {
		if st := c.jobs[x.start.Job]; st != nil && st.row.Status == Failed && st.row.StartedBy == x.start.Worker && st.decided == "" {
			st.unlogged = true
		}
	}
	c.stop(p)
}

// restarted begins a fresh life of a process that crashed or shut down.
func (c *Checker) restarted(e *Event) {
	p := c.proc(e)
	if len(p.open) > 0 {
		c.report(WellFormed, fmt.Sprintf("process %s restarted while %d of its executions were in progress", p.name, len(p.open)),
			withEvents(p.openStarts()...))
	}
	c.stop(p)
}

// declaredDead checks that a worker that learned it was declared dead really
// was: its row is shut down or gone.
func (c *Checker) declaredDead(e *Event) {
	c.dropCancelsDue(c.proc(e))
	if w, known := c.workers[e.Worker]; known && w.ShutdownAt.IsZero() {
		c.report(WellFormed, fmt.Sprintf("worker %s learned it was declared dead, but its row is live", e.Worker), withWorkers(w))
	}
}

// shutdownCompleted checks property 3 as a graceful shutdown ends: the
// worker owns no running row and not the lease (both as the driver read
// them and as the history's rows say), every job the process started has a
// result, and its worker row is shut down. The process then exits.
func (c *Checker) shutdownCompleted(e *Event) {
	p := c.proc(e)
	w := e.Worker
	if len(e.Running) > 0 {
		c.report(ShutdownDraining, fmt.Sprintf("after its graceful shutdown the store still lists %d jobs running under %s: %v", len(e.Running), w, e.Running))
	}
	if !w.IsZero() && (e.LeaseHolder == w || (c.lease != nil && c.lease.Holder == w)) {
		c.report(ShutdownDraining, fmt.Sprintf("after its graceful shutdown %s still holds the lease", w), withLease(c.lease))
	}
	if rows := c.unfinishedOf(w, p); len(rows) > 0 {
		c.report(ShutdownDraining, fmt.Sprintf("after its graceful shutdown %d jobs that process %s started or reserved have no result", len(rows), p.name),
			withJobs(rows...))
	}
	if row, known := c.workers[w]; known && row.ShutdownAt.IsZero() {
		c.report(ShutdownDraining, fmt.Sprintf("after its graceful shutdown worker %s is not marked shut down", w), withWorkers(row))
	}
	c.stop(p)
}

// shutdownAbandoned checks a graceful shutdown given up (property 3): only
// after the runner's full count of failed tries. The process then exits
// like a crash; a leader rescues what its worker still owns.
func (c *Checker) shutdownAbandoned(e *Event) {
	if n := c.params.ShutdownAttempts; e.Failures < n {
		c.report(ShutdownDraining, fmt.Sprintf("process %s gave its graceful shutdown as %s up after %d failed tries, fewer than the %d it must make",
			c.procKey(e), e.Worker, e.Failures, n))
	}
	c.crashed(e)
}

// stopRequested notes a request to stop the process: the first, a
// repeat of it within RepeatWindow (the same request), or a second one,
// which lets the process give its drain up.
func (c *Checker) stopRequested(e *Event) {
	s := &c.proc(e).stops
	switch {
	case s.first == "":
		s.first, s.at = e.Reason, e.Time
	case e.Reason == s.first && e.Time.Sub(s.at) < c.params.RepeatWindow:
		s.repeated = true
	default:
		s.second = true
	}
}

// early reports a process that cut its drain short, what and how long
// after its shutdown began: a violation of property 3, or of
// OneStopRequest when only a repeat of its first request came. A second
// request excuses it.
func (c *Checker) early(p *procState, what string, waited time.Duration, detail ...func(*Violation)) {
	switch {
	case p.stops.second:
	case p.stops.repeated:
		c.report(OneStopRequest, fmt.Sprintf("process %s %s %v after its graceful shutdown began, before the drain timeout %v, "+
			"with no request to stop but its first (%s) repeated within %v", p.name, what, waited, c.params.DrainTimeout,
			p.stops.first, c.params.RepeatWindow), detail...)
	default:
		c.report(ShutdownDraining, fmt.Sprintf("process %s %s %v after its graceful shutdown began, before the drain timeout %v",
			p.name, what, waited, c.params.DrainTimeout), detail...)
	}
}

// execsCancelled marks the process's executions cancelled and checks
// (property 3) that a graceful shutdown cancels them only once the drain
// timeout has passed, less the 20% a drifting local clock may run fast: a
// handler that honours its context and finishes within the drain must
// complete, not be cancelled. Histories with inexact shutdown times
// (DrainTimeout 0) skip the check.
func (c *Checker) execsCancelled(e *Event) {
	p := c.proc(e)
	for _, x := range p.open {
		x.cancelled = true
	}
	p.cancelDue = false
	if waited, least := e.Time.Sub(p.shutdownAt), c.params.DrainTimeout*4/5; c.params.DrainTimeout > 0 && p.shuttingDown && waited < least {
		c.early(p, "cancelled its handlers", waited, withEvents(p.openStarts()...))
	}
}

// released checks a running job a process in graceful shutdown released
// (failed with ReleaseReason) while its handler still ran (property 3):
// the drain timeout had passed since the shutdown began, less the 20% a
// drifting local clock may run fast, and the handler's context had been
// cancelled. Histories with inexact shutdown times (DrainTimeout 0) skip it.
func (c *Checker) released(e *Event, b, a *JobRow) {
	p := c.procOf(b.StartedBy)
	if c.params.DrainTimeout <= 0 || a.FailedReason != ReleaseReason || p == nil || !p.shuttingDown {
		return
	}
	x := p.open[a.ID]
	if x == nil {
		return // its handler had returned, or never ran here (an unseen reservation)
	}
	if waited, least := e.Time.Sub(p.shutdownAt), c.params.DrainTimeout*4/5; waited < least {
		c.early(p, "released job "+a.ID.String(), waited, withJobs(*b, *a), withEvents(x.start))
	}
	if !x.cancelled {
		c.report(ShutdownDraining, fmt.Sprintf("process %s released job %s without cancelling its handler's context first", p.name, a.ID),
			withJobs(*b, *a), withEvents(x.start))
	}
}

// ReleaseReason is the failed_reason of a job released at a graceful
// shutdown: the engine's own text (failreason), not a copy of it.
const ReleaseReason = failreason.Shutdown

// unfinishedOf returns, in id order, the rows running under w and the rows
// process p started that have not ended.
func (c *Checker) unfinishedOf(w ulid.ULID, p *procState) []JobRow {
	ids := make([]ulid.ULID, 0, len(p.started)+len(c.runningBy[w]))
	for id := range p.started {
		ids = append(ids, id)
	}
	for id := range c.runningBy[w] {
		if _, dup := p.started[id]; !dup {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	rows := make([]JobRow, 0, len(ids))
	for _, id := range ids {
		if st := c.jobs[id]; st != nil {
			rows = append(rows, st.row)
		}
	}
	return rows
}
