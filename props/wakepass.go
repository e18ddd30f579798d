package props

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 22's second half: the tick a wake-up brings reserves. A tick
// that comes in time proves nothing if its job pass leaves the job where
// it was, so the first job pass (JobPass) after a notification that made
// a waiting process with a free place owe a tick (notified) must leave no
// job of the notified queue that it could have reserved. Such a job is
// available and ready (scheduled_at not after the pass's store time) in a
// queue that is neither paused nor at its limit. Excused, from the
// history alone:
//
//   - a pass that filled what it could: its process has no free place
//     after it (MaxConcurrent open executions, counting the jobs it
//     started), or it reserved MaxFetch jobs;
//   - no such job left: another worker took it, it was cancelled, or the
//     queue was paused (every queue, by PauseAll) or reached its limit;
//   - a queue with a rate: the store's rate slots keep starts across a
//     change of the rate, stricter than property 14's window, so the
//     history does not say whether a start was allowed;
//   - a process shutting down (it reserves nothing) or whose tick failed
//     (its Waiting has Failures; a failed pass records no JobPass, and a
//     pass under no worker, the zero Worker, whose registration failed,
//     reserves nothing);
//   - histories whose transactions overlap (not SerialTransactions): a
//     row committed after the pass's snapshot, or locked by another
//     transaction, was not the pass's to take. In a serial history the
//     JobPass follows its commit with nothing between, so the rows as the
//     checker holds them are the ones the pass saw, after its writes.
//
// A tick that ends (Waiting without Failures) with no JobPass since the
// notification skipped its job pass: a violation too.
//
// Property 21's counterpart: every other job pass, with the same
// exceptions, leaves no job of Params.Queues it could have reserved, so
// the poll tick that comes in time also takes the job it came for. Both
// judge only the queues the pass asked for (PassQueues; all when it asked
// for none): a running worker may have removed a queue
// (worker.RemoveQueue), whose jobs are then not its to take.

// passOwed is what a process's next job pass owes its wake-ups.
type passOwed struct {
	queues []string  // the notified queues, each once (a reused buffer)
	at     time.Time // the first notification
	taken  int       // the places taken then
}

// owe notes that p's next job pass owes a reservation of queue, if
// histories of this kind can judge it.
func (c *Checker) owe(p *procState, e *Event) {
	if !c.params.SerialTransactions || c.params.MaxFetch <= 0 || slices.Contains(p.owed.queues, e.Queue) {
		return
	}
	if len(p.owed.queues) == 0 {
		p.owed.at, p.owed.taken = e.Time, len(p.open)
	}
	p.owed.queues = append(p.owed.queues, e.Queue)
}

// jobPass judges a job pass: the one a process owed its wake-ups (22),
// and any other that left a job it could have reserved (21: the poll
// tick that comes in time must also take the job it came for).
func (c *Checker) jobPass(e *Event) {
	p := c.proc(e)
	defer p.forgetOwed()
	free := c.params.MaxConcurrent - len(p.open)
	if !c.params.SerialTransactions || c.params.MaxFetch <= 0 ||
		p.shuttingDown || e.Worker == (ulid.ULID{}) || free <= 0 || e.Reserved >= c.params.MaxFetch {
		return
	}
	for _, q := range p.owed.queues {
		if id, ok := c.reservable(q, e.Time); ok && askedFor(e, q) {
			c.report(c.keyedOr(q, WakeUp), fmt.Sprintf("process %s was notified at %s of jobs available in queue %s with %d of %d places taken; "+
				"its job pass at %s asked for %d jobs of queues %v and reserved %d, leaving %d places free and job %s of queue %s available and ready",
				p.name, formatTime(p.owed.at), q, p.owed.taken, c.params.MaxConcurrent, formatTime(e.Time), e.Limit, e.PassQueues,
				e.Reserved, free, id, q), withJobs(c.jobs[id].row))
			return
		}
	}
	for _, q := range c.params.Queues {
		if id, ok := c.reservable(q, e.Time); ok && askedFor(e, q) {
			c.report(c.keyedOr(q, PollInterval), fmt.Sprintf("process %s's job pass at %s asked for %d jobs of queues %v and reserved %d, "+
				"leaving %d of %d places free and job %s of queue %s available and ready",
				p.name, formatTime(e.Time), e.Limit, e.PassQueues, e.Reserved, free, c.params.MaxConcurrent, id, q), withJobs(c.jobs[id].row))
			return
		}
	}
}

// askedFor reports whether job pass e is judged on queue q: one of the
// queues it asked for, or any queue when it asked for none (a pass that
// asks for nothing with a free place is the bug the judgement is for).
func askedFor(e *Event, q string) bool {
	return len(e.PassQueues) == 0 || slices.Contains(e.PassQueues, q)
}

// waitedWithoutPass ends what p owed when its tick is over: a tick that
// succeeded without a job pass broke the promise.
func (c *Checker) waitedWithoutPass(p *procState, e *Event) {
	if len(p.owed.queues) == 0 {
		return
	}
	if e.Failures == 0 && !p.shuttingDown {
		c.report(WakeUp, fmt.Sprintf("process %s was notified at %s of jobs available in queue %s with %d of %d places taken, "+
			"and its tick ended at %s without a job pass", p.name, formatTime(p.owed.at), p.owed.queues[0], p.owed.taken,
			c.params.MaxConcurrent, formatTime(e.Time)))
	}
	p.forgetOwed()
}

// forgetOwed clears what the next job pass owes, keeping the buffer.
func (p *procState) forgetOwed() {
	clear(p.owed.queues)
	p.owed.queues = p.owed.queues[:0]
}

// reservable returns the smallest id of a job of queue that a pass at
// store time at could reserve, none while every queue is paused:
// available and ready in a queue neither paused, at its limit nor rate-limited, and of a key under its limit.
// A pass that leaves such a job of a queue with a per-key limit broke
// per-key fairness (keys.go) rather than 21 or 22: it stopped at a key at
// its limit instead of skipping over it.
func (c *Checker) reservable(queue string, at time.Time) (ulid.ULID, bool) {
	avail := c.queues.available[queue]
	if len(avail) == 0 || c.pausedAll() { // none available: no row to look up
		return ulid.ULID{}, false
	}
	if q, ok := c.queues.rows[queue]; ok {
		if !q.PausedAt.IsZero() || q.Rate > 0 || q.Limit > 0 && c.queues.running[queue] >= q.Limit {
			return ulid.ULID{}, false
		}
	}
	var first ulid.ULID
	found := false
	for id := range avail {
		if found && id.Compare(first) >= 0 {
			continue
		}
		if r := &c.jobs[id].row; !c.keyReservable(queue, r, at) || c.sequenceHeld(r) {
			continue
		}
		first, found = id, true
	}
	return first, found
}
