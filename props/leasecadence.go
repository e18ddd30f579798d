package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 41, lease cadence: a serving worker that holds the lease
// maintains it (renews it, or its transaction to do so fails) in a tick
// that began Params.LeaderBound or more after the tick in which it last
// did, so that its leader passes (promotions, rescues, retention) come
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
	if c.leaseTicks == nil {
		c.leaseTicks = map[ulid.ULID]time.Time{}
	}
	c.leaseTicks[e.Worker] = p.tickAt
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
	last, seen := c.leaseTicks[e.Worker]
	if since := at.Sub(last); seen && since >= c.params.LeaderBound {
		c.report(LeaseCadence, fmt.Sprintf("lease holder %s's tick at %s did not maintain the lease: it began %v after the tick in which it last did, "+
			"past the leader interval's bound of %v", e.Worker, formatTime(at), since, c.params.LeaderBound), withLease(c.lease))
	}
}
