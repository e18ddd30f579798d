package props

import (
	"fmt"
	"math"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
)

// startChains makes each attempt 0 the commit inserted (before any snooze)
// the root of its own chain of attempts.
func (c *Checker) startChains(sc *commitScope) {
	for _, id := range sc.inserted {
		st := c.jobs[id]
		if st == nil || !st.row.root() {
			continue
		}
		st.chain = id
		c.chains[id] = &chainState{tail: id, schedule: st.row.ScheduleName}
	}
}

// retryLink checks one link to a job's next row: a snooze's (property
// 15, see snoozeLink) or a retry (property 2): the failed or lost attempt
// had retries left by its bound, the next attempt is a new row numbered
// one more that keeps the job's bound and snoozes, and its scheduled_at is
// the failure time plus a delay the queue's backoff policy allows for the
// failed attempt. It then extends the chain, which for a schedule's run
// must still be that schedule's latest run (property 7).
func (c *Checker) retryLink(l link, sc *commitScope) {
	prev, next := c.jobs[l.prev], c.jobs[l.next]
	if next == nil {
		c.report(WellFormed, fmt.Sprintf("job %s links to next attempt %s, which does not exist", l.prev, l.next), withJobs(prev.row))
		return
	}
	p, n := prev.row, next.row
	prev.linked = true
	bound := c.bound(p)
	newRow := sc.wasInserted(n.ID) && next.chain.IsZero()
	if p.DeadFrom != "" || sc.operatorRetry {
		c.redriveLink(p, n, newRow)
		if ch := c.chains[prev.chain]; ch != nil {
			ch.redriven = true // before extendChain: an operator may retry any run
		}
		c.extendChain(l, prev, next)
		if ch := c.chains[next.chain]; ch != nil {
			ch.redriven = true
		}
		return
	}
	switch {
	case p.Status == Snoozed && !newRow:
		c.report(Snoozes, fmt.Sprintf("snoozed job %s links to %s, which is not a new row", p.ID, n.ID), withJobs(p, n))
		return
	case p.Status == Snoozed:
		c.snoozeLink(prev, n)
	case p.Status != Failed && p.Status != Lost:
		c.report(RetryBounds, fmt.Sprintf("job %s got a next attempt while %s", p.ID, p.Status), withJobs(p, n))
	case p.Status == Failed && (prev.decided == Fail || prev.decided == Snooze) && p.FailedReason != ReleaseReason:
		c.report(RetryBounds, fmt.Sprintf("job %s was retried although its handler failed it for good (decision %s)", p.ID, prev.decided), withJobs(p, n))
	case p.Attempt+1 >= bound:
		c.report(RetryBounds, fmt.Sprintf("attempt %d of job %s was retried beyond %s", p.Attempt, p.ID, c.boundName(p)), withJobs(p, n))
	case n.Attempt != p.Attempt+1:
		c.report(RetryBounds, fmt.Sprintf("the next attempt of attempt %d (job %s) is numbered %d", p.Attempt, p.ID, n.Attempt), withJobs(p, n))
	case !newRow:
		c.report(RetryBounds, fmt.Sprintf("job %s links to %s, which is not a new row", p.ID, n.ID), withJobs(p, n))
		return
	case n.MaxAttempts != p.MaxAttempts || n.Snoozes != p.Snoozes:
		c.report(RetryBounds, fmt.Sprintf("the retry of job %s has max attempts %d and %d snoozes, the job %d and %d",
			p.ID, n.MaxAttempts, n.Snoozes, p.MaxAttempts, p.Snoozes), withJobs(p, n))
	default:
		c.checkDelay(p, n)
	}
	c.extendChain(l, prev, next)
}

// bound returns how many attempts row r's job may take: the job's own
// bound, its queue's policy's, or MaxRetries + 1. boundName names it.
func (c *Checker) bound(r JobRow) int {
	if r.MaxAttempts > 0 {
		return r.MaxAttempts
	}
	if p := c.policy(r.home()); p != nil && p.MaxAttempts > 0 {
		return p.MaxAttempts
	}
	return c.params.MaxRetries + 1
}

// boundName names the bound that bound returns, for a report (it is not
// built for every row: it costs allocations).
func (c *Checker) boundName(r JobRow) string {
	if r.MaxAttempts > 0 {
		return fmt.Sprintf("the job's own bound of %d attempts", r.MaxAttempts)
	}
	if p := c.policy(r.home()); p != nil && p.MaxAttempts > 0 {
		return fmt.Sprintf("queue %s's bound of %d attempts", r.home(), p.MaxAttempts)
	}
	return fmt.Sprintf("MaxRetries %d", c.params.MaxRetries)
}

// policy returns queue's own retry policy, nil for none.
func (c *Checker) policy(queue string) *QueuePolicy {
	for i := range c.params.Policies {
		if c.params.Policies[i].Queue == queue {
			return &c.params.Policies[i]
		}
	}
	return nil
}

// backoff returns the delay policy of queue's retries.
func (c *Checker) backoff(queue string) clockrng.Backoff {
	if p := c.policy(queue); p != nil && p.Backoff != nil {
		return *p.Backoff
	}
	return c.params.Backoff
}

// checkDelay checks the retry's scheduled_at against the failure time and
// the queue's policy. Stores add the delay truncated to the microsecond.
// No policy's delay is negative: a retry due before its failure is an
// overflowed delay, whatever bounds the policy gives.
func (c *Checker) checkDelay(p, n JobRow) {
	if p.FailedAt.IsZero() {
		c.report(WellFormed, fmt.Sprintf("job %s is %s without a failed_at", p.ID, p.Status), withJobs(p))
		return
	}
	d := n.ScheduledAt.Sub(p.FailedAt)
	if d < 0 {
		c.report(RetryBounds, fmt.Sprintf("the retry of attempt %d of job %s is scheduled %v before its failure: a delay overflowed",
			p.Attempt, p.ID, -d), withJobs(p, n))
		return
	}
	b := c.backoff(p.Queue)
	lo, hi := b.Bounds(p.Attempt)
	lo = max(lo, 0).Truncate(time.Microsecond)
	if d < lo || d > hi {
		c.report(RetryBounds, fmt.Sprintf("the retry of attempt %d of job %s is scheduled %v after its failure, outside the policy's [%v, %v]",
			p.Attempt, p.ID, d, lo, hi), withJobs(p, n))
		return
	}
	if floor := backoffFloor(b, p.Attempt); d < floor {
		c.report(RetryBounds, fmt.Sprintf("the retry of attempt %d of job %s is scheduled %v after its failure, before the policy's floor %v",
			p.Attempt, p.ID, d, floor), withJobs(p, n))
	}
}

// backoffFloor is the shortest delay policy b allows before the retry of
// attempt: Base × Factor^attempt, capped by Max and clockrng.MaxDuration,
// less its jitter, less a microsecond for the stores' truncation and the
// rounding of floats. It is worked out here in floats rather than by b's
// own methods, so that a delay that those compute wrongly (a product that
// overflowed) still falls below it.
func backoffFloor(b clockrng.Backoff, attempt int) time.Duration {
	n := min(float64(b.Base)*math.Pow(b.Factor, float64(max(attempt, 0))), float64(clockrng.MaxDuration))
	if b.Max > 0 {
		n = min(n, float64(b.Max))
	}
	floor := n * (1 - min(max(b.Jitter, 0), 1))
	return max(time.Duration(floor)-time.Microsecond, 0)
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
	if ch.schedule == "" || ch.redriven || prev.row.DeadFrom != "" { // redriven: an operator retried a run, any run
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
		if st != nil && !st.row.root() && st.chain.IsZero() {
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
