package props

import (
	"fmt"
	"slices"
	"time"
)

// Properties 21 and 22, the poll interval and the wake-up: a job that
// becomes available while a worker has a free place starts within one
// poll interval, and at once when notifications work. What is judged here
// is the runner's part, its ticks, which the history records (TickStarted,
// Waiting, Notified); that each tick's job pass takes the jobs it can is
// judged in wakepass.go, and which jobs it takes by the properties of
// priorities, pause, limit and rate and by the store's conformance suite.
// Hence:
//
//   - 21: a serving process whose last tick succeeded begins its next
//     tick within Params.PollBound of the moment it began waiting
//     (Waiting), whatever it runs: an idle worker looks for jobs at
//     least once per poll interval (the heartbeat and the lease may make
//     it look sooner); one whose last ticks failed (Waiting with
//     Failures) begins its next within Params.BackoffBounds, the error
//     backoff of that many failures in a row;
//   - 22: a waiting process with a free place (fewer than MaxConcurrent
//     executions open) that is handed a notification of jobs available
//     in one of Params.Queues (Notified) begins a tick within
//     Params.WakeBound: a wake-up that is ignored is a violation, not
//     only slower.
//
// Not judged, and why: a process that is shutting down (it reserves
// nothing); for 22, one whose last tick failed (it waits out the error
// backoff, judged by 21, and ignores notifications); one that
// is full (a notification finds no place; a finishing job brings the
// tick); a notification lost or late (only one handed to the runner is
// recorded, when it is); the time a process is stalled (nothing of it
// runs) and the time its store calls take (it waits for no tick while a
// call is out, so a slow, silent or failing store delays the Waiting
// that starts the clock, never the tick it owes). Queue pauses, limits
// and rates, priorities, clock drift (in the bounds' true time) and the
// leader's promotion of scheduled jobs (which notifies like an enqueue)
// change what a tick reserves, not when it comes. What the tick's job
// pass must then reserve is judged in wakepass.go.

// wait is the tick a process owes: from the moment it began waiting, or
// was notified, it must begin a tick within bound, plus the time it was
// stalled since (paused). A zero bound owes nothing.
type wait struct {
	on      bool // it waits: no store call out, no tick begun since
	failing bool // its last tick failed: it backs off
	from    time.Time
	bound   time.Duration
	paused  time.Duration
	prop    Property
	queue   string // the notification's queue (WakeUp)
	taken   int    // the places taken then (WakeUp)
}

// deadline is when the tick is due, stalls since from counted.
func (w *wait) deadline() time.Time { return w.from.Add(w.bound + w.paused) }

// waits are the processes that owe a tick. No deadline among them comes
// before due, so most steps look at none of them.
type waits struct {
	procs []*procState
	due   time.Time
}

// never is a due date no history reaches.
var never = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// add makes p's tick owed by deadline.
func (w *waits) add(p *procState, deadline time.Time) {
	if !slices.Contains(w.procs, p) {
		w.procs = append(w.procs, p)
	}
	if w.due.IsZero() || deadline.Before(w.due) {
		w.due = deadline
	}
}

// waiting starts the process's wait for its next tick.
func (c *Checker) waiting(e *Event) {
	p := c.proc(e)
	c.waitedWithoutPass(p, e)
	if p.shuttingDown {
		return
	}
	p.wait = wait{on: true, failing: e.Failures > 0, from: e.Time}
	bound := c.params.PollBound
	if bs := c.params.BackoffBounds; p.wait.failing {
		bound = 0
		if len(bs) > 0 {
			bound = bs[min(e.Failures, len(bs))-1]
		}
	}
	if bound <= 0 {
		return
	}
	p.wait.bound, p.wait.prop = bound, PollInterval
	c.waits.add(p, p.wait.deadline())
}

// notified makes a waiting process with a free place owe a tick within
// WakeBound, unless it already owes one sooner.
func (c *Checker) notified(e *Event) {
	p := c.proc(e)
	w := &p.wait
	if !w.on || w.failing || p.shuttingDown || c.params.WakeBound <= 0 || !slices.Contains(c.params.Queues, e.Queue) {
		return
	}
	if limit := c.params.MaxConcurrent; limit > 0 && len(p.open) >= limit {
		return
	}
	c.owe(p, e)
	if due := e.Time.Add(c.params.WakeBound); w.bound > 0 && !due.Before(w.deadline()) {
		return
	}
	w.from, w.bound, w.paused, w.prop = e.Time, c.params.WakeBound, 0, WakeUp
	w.queue, w.taken = e.Queue, len(p.open)
	c.waits.add(p, w.deadline())
}

// tickStarted pays the tick the process owed and notes when the tick
// began (properties 40 and 41).
func (c *Checker) tickStarted(e *Event) {
	p := c.proc(e)
	p.wait, p.tickAt, p.tickBeat, p.tickLeased = wait{}, e.Time, false, false
}

// resumeWait adds the part of the stall just ended that fell within the
// process's wait to it.
func (c *Checker) resumeWait(p *procState, now time.Time) {
	w := &p.wait
	if !w.on || w.bound <= 0 || p.stalledAt.IsZero() {
		return
	}
	from := p.stalledAt
	if from.Before(w.from) {
		from = w.from
	}
	if now.After(from) {
		w.paused += now.Sub(from)
	}
	c.waits.add(p, w.deadline())
}

// checkWaits reports, once each, the processes whose owed tick is past
// due by now. A stalled process is judged once it resumes.
func (c *Checker) checkWaits(now time.Time) {
	ws := &c.waits
	if len(ws.procs) == 0 || !now.After(ws.due) {
		return
	}
	ws.due = never
	kept := ws.procs[:0]
	for _, p := range ws.procs {
		w := &p.wait
		switch {
		case !w.on || w.bound <= 0:
			continue
		case !p.stalledAt.IsZero():
		case !now.After(w.deadline()):
			ws.due = minTime(ws.due, w.deadline())
		default:
			c.report(w.prop, fmt.Sprintf("process %s %s at %s and began no tick by %s, past the bound %v (not counting its stalls, %v)",
				p.name, c.why(w), formatTime(w.from), formatTime(now), w.bound, w.paused))
			w.bound = 0
			continue
		}
		kept = append(kept, p)
	}
	clear(ws.procs[len(kept):])
	ws.procs = kept
}

// why says what made a process owe a tick.
func (c *Checker) why(w *wait) string {
	if w.prop == WakeUp {
		return fmt.Sprintf("was notified of jobs available in queue %s with %d of %d places taken", w.queue, w.taken, c.params.MaxConcurrent)
	}
	return "began waiting for its next tick"
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
