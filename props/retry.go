package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// startChains makes each attempt 0 the commit inserted the root of its own
// chain of attempts.
func (c *Checker) startChains(sc *commitScope) {
	for _, id := range sc.inserted {
		st := c.jobs[id]
		if st == nil || st.row.Attempt != 0 {
			continue
		}
		st.chain = id
		c.chains[id] = &chainState{tail: id, schedule: st.row.ScheduleName}
	}
}

// retryLink checks one retry (property 2): the failed or lost attempt had
// retries left, the next attempt is a new row numbered one more, and its
// scheduled_at is the failure time plus a delay the backoff policy allows
// for the failed attempt. It then extends the chain, which for a schedule's
// run must still be that schedule's latest run (property 7).
func (c *Checker) retryLink(l link, sc *commitScope) {
	prev, next := c.jobs[l.prev], c.jobs[l.next]
	if next == nil {
		c.report(WellFormed, fmt.Sprintf("job %s links to next attempt %s, which does not exist", l.prev, l.next), withJobs(prev.row))
		return
	}
	p, n := prev.row, next.row
	prev.linked = true
	switch {
	case p.Status != Failed && p.Status != Lost:
		c.report(RetryBounds, fmt.Sprintf("job %s got a next attempt while %s", p.ID, p.Status), withJobs(p, n))
	case p.Status == Failed && prev.decided == Fail && p.FailedReason != ReleaseReason:
		c.report(RetryBounds, fmt.Sprintf("job %s was retried although its handler failed it for good", p.ID), withJobs(p, n))
	case p.Attempt >= c.params.MaxRetries:
		c.report(RetryBounds, fmt.Sprintf("attempt %d of job %s was retried, but MaxRetries is %d", p.Attempt, p.ID, c.params.MaxRetries), withJobs(p, n))
	case n.Attempt != p.Attempt+1:
		c.report(RetryBounds, fmt.Sprintf("the next attempt of attempt %d (job %s) is numbered %d", p.Attempt, p.ID, n.Attempt), withJobs(p, n))
	case !sc.wasInserted(n.ID) || !next.chain.IsZero():
		c.report(RetryBounds, fmt.Sprintf("job %s links to %s, which is not a new row", p.ID, n.ID), withJobs(p, n))
		return
	default:
		c.checkDelay(p, n)
	}
	c.extendChain(l, prev, next)
}

// checkDelay checks the retry's scheduled_at against the failure time and
// the policy. Stores add the delay truncated to the microsecond.
func (c *Checker) checkDelay(p, n JobRow) {
	if p.FailedAt.IsZero() {
		c.report(WellFormed, fmt.Sprintf("job %s is %s without a failed_at", p.ID, p.Status), withJobs(p))
		return
	}
	lo, hi := c.params.Backoff.Bounds(p.Attempt)
	lo = lo.Truncate(time.Microsecond)
	if d := n.ScheduledAt.Sub(p.FailedAt); d < lo || d > hi {
		c.report(RetryBounds, fmt.Sprintf("the retry of attempt %d of job %s is scheduled %v after its failure, outside the policy's [%v, %v]",
			p.Attempt, p.ID, d, lo, hi), withJobs(p, n))
	}
}

// extendChain makes next the tail of prev's chain. A history that began
// after the chain's attempt 0 gets a chain rooted at prev.
func (c *Checker) extendChain(l link, prev, next *jobState) {
	if prev.chain.IsZero() {
		prev.chain = l.prev
		c.chains[l.prev] = &chainState{tail: l.prev, schedule: prev.row.ScheduleName}
	}
	ch := c.chains[prev.chain]
	if ch == nil {
		return // the chain's tail was deleted: nothing can depend on it
	}
	next.chain, ch.tail = prev.chain, l.next
	if ch.schedule == "" {
		return
	}
	if s := c.scheds[ch.schedule]; s != nil && s.lastRun != prev.chain {
		c.report(ScheduleRuns, fmt.Sprintf("a run of schedule %s was retried (job %s) after a newer run %s was enqueued",
			ch.schedule, l.next, s.lastRun), withJobs(prev.row, next.row))
	}
}

// checkOrphanAttempts reports retries inserted without a failed attempt
// linking to them: the chain's attempt count could not be bounded.
func (c *Checker) checkOrphanAttempts(sc *commitScope) {
	for _, id := range sc.inserted {
		st := c.jobs[id]
		if st != nil && st.row.Attempt > 0 && st.chain.IsZero() {
			c.report(RetryBounds, fmt.Sprintf("attempt %d (job %s) was inserted without a previous attempt linking to it", st.row.Attempt, id), withJobs(st.row))
		}
	}
}

// dropChainIfTail forgets a chain once its latest attempt is deleted: no
// later event can extend it, and its runs are over.
func (c *Checker) dropChainIfTail(id ulid.ULID, st *jobState) {
	if ch := c.chains[st.chain]; ch != nil && ch.tail == id && len(ch.open) == 0 {
		delete(c.chains, st.chain)
	}
}
