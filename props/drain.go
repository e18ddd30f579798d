package props

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 20, the drain deadline: a handler still running when a
// graceful shutdown began keeps its context through the drain (property
// 3 judges "not before"), and is cut short at the deadline, not long
// after:
//
//   - when the runner reaches its drain deadline (DrainDeadline), it
//     cancels the contexts of its handlers still running
//     (ExecsCancelled) before store time moves on;
//   - by Params.CancelBound after the shutdown began, no handler of the
//     process runs with its context uncancelled (the drain, and a store
//     call in flight at its deadline, which the runner waits for);
//   - by Params.ReleaseBound after it began, every job whose handler
//     still runs no longer runs under its worker (released, or rescued),
//     unless the process gave the release up (ReleaseAbandoned: the
//     shutdown transaction releases them next, within property 19's
//     bound, or a leader rescues them).
//
// The time the process was stalled does not count, as for property 19.
// The release bound is a silent store's worst case, so a release that
// never comes shows only with a handler that outlives it: the simulator's
// handlers that ignore cancellation hang, half of them, once the drain
// deadline cancels them (planted bug release-waits-for-handlers).
// Histories without exact shutdown times (CancelBound and ReleaseBound
// 0: a live log's, which stamps the deadline with the next transaction's
// store time) are not judged.

// drainDeadline notes that the process reached its drain deadline: the
// handlers whose contexts are still live must be cancelled now.
func (c *Checker) drainDeadline(e *Event) {
	p := c.proc(e)
	if c.params.CancelBound > 0 && p.uncancelled() != nil {
		p.cancelDue, p.deadlineAt = true, e.Time
		c.drainDue = append(c.drainDue, p)
	}
}

// checkDrainDue reports, once store time has passed a drain deadline,
// the processes that have not cancelled their handlers at it.
func (c *Checker) checkDrainDue(now time.Time) {
	if len(c.drainDue) == 0 {
		return
	}
	c.drainDue = slices.DeleteFunc(c.drainDue, func(p *procState) bool {
		if !p.cancelDue {
			return true
		}
		if !now.After(p.deadlineAt) {
			return false
		}
		p.cancelDue = false
		c.report(DrainBound, fmt.Sprintf("process %s reached its drain deadline at %s and had not cancelled its handlers' contexts by %s",
			p.name, formatTime(p.deadlineAt), formatTime(now)), withEvents(p.openStarts()...))
		return true
	})
}

// checkDrainBounds judges, once each, a shutting-down process that has
// been shutting down for took (stalls aside) against the cancel and
// release bounds.
func (c *Checker) checkDrainBounds(p *procState, took time.Duration) {
	if b := c.params.CancelBound; b > 0 && !p.cancelJudged && took > b {
		p.cancelJudged = true
		if x := p.uncancelled(); x != nil {
			c.report(DrainBound, fmt.Sprintf("process %s has been shutting down for %v (not counting its stalls), past the bound %v, "+
				"and the context of its handler of job %s is not cancelled", p.name, took, b, x.start.Job), withEvents(x.start))
		}
	}
	if b := c.params.ReleaseBound; b > 0 && !p.releaseJudged && took > b {
		p.releaseJudged = true
		if p.releaseGivenUp {
			return
		}
		for _, id := range slices.SortedFunc(maps.Keys(p.open), ulid.ULID.Compare) {
			x := p.open[id]
			if st := c.jobs[id]; st != nil && st.row.Status == Running && st.row.StartedBy == x.start.Worker {
				c.report(DrainBound, fmt.Sprintf("process %s has been shutting down for %v (not counting its stalls), past the bound %v, "+
					"and job %s, whose handler still runs, is still running under %s", p.name, took, b, id, x.start.Worker),
					withJobs(st.row), withEvents(x.start))
				return
			}
		}
	}
}

// uncancelled returns an execution of the process, the first by job id,
// whose context is not cancelled, or nil.
func (p *procState) uncancelled() *execution {
	var first *execution
	for id, x := range p.open {
		if !x.cancelled && (first == nil || id.Compare(first.start.Job) < 0) {
			first = x
		}
	}
	return first
}
