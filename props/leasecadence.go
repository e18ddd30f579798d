package props

import "fmt"

// Property 41, lease cadence: a serving worker that holds the lease
// maintains it (renews it, or its transaction to do so fails) in a tick
// that began Params.LeaderBound or more after the tick in which it last
// did (or of its first judged pass), so that its leader passes (promotions, rescues, retention) come
// at the leader interval. Judged where transactions were serial, as the
// lease's holder at a tick's start is then the history's.

// leasePass notes that the worker maintained the lease in its process's
// tick in progress.
func (c *Checker) leasePass(e *Event) {
	p := c.proc(e)
	if p.tickAt.IsZero() {
		return
	}
	p.tickLeased = true
	c.leaseTicks.done(e.Worker, p.tickAt)
}

// checkLeaseDue judges job pass e: if its worker held the lease when the
// tick began, that tick maintained the lease once LeaderBound passed since
// the tick in which it last did.
func (c *Checker) checkLeaseDue(e *Event) {
	if c.params.LeaderBound <= 0 || !c.params.SerialTransactions || e.Worker.IsZero() {
		return
	}
	p := c.proc(e)
	at := p.tickAt
	if at.IsZero() || p.tickLeased || p.shuttingDown || c.lease == nil || c.lease.Holder != e.Worker || !c.lease.ExpiresAt.After(at) {
		return
	}
	if since, owed := c.leaseTicks.overdue(e.Worker, at, c.params.LeaderBound); owed {
		c.report(LeaseCadence, fmt.Sprintf("lease holder %s's tick at %s did not maintain the lease: it began %v after the tick in which it last did, "+
			"past the leader interval's bound of %v", e.Worker, formatTime(at), since, c.params.LeaderBound), withLease(c.lease))
	}
}
