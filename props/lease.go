package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// leaseChange checks one change of the lease row (property 1). There is at
// most one lease row; a lease passes to another worker, or is deleted by
// anyone but its holder, only once it expired; a holder renews only an
// unexpired lease; a lease never runs longer than the TTL from the commit
// and is never granted to a shut-down worker.
func (c *Checker) leaseChange(e *Event, before, after *LeaseRow) {
	old := before
	switch {
	case before == nil && c.lease != nil && c.lease.ExpiresAt.After(e.Time):
		c.report(LeaderUniqueness, fmt.Sprintf("a second lease was inserted while %s holds one until %s",
			c.lease.Holder, formatTime(c.lease.ExpiresAt)), withLease(c.lease), withLease(after))
	case before == nil && c.lease != nil:
		c.report(WellFormed, "a lease row was inserted over an expired one whose delete was not recorded", withLease(c.lease), withLease(after))
	case before != nil && c.lease != nil && *before != *c.lease:
		c.report(WellFormed, "the lease changed from a row the history never had", withLease(c.lease), withLease(before))
	case before == nil:
	default:
		c.checkLeaseSuccession(e, *old, after)
	}
	if after != nil {
		c.checkLeaseGrant(e.Time, old, *after)
	}
	c.lease = after
	if after != nil && c.params.CommitOrder {
		if c.terms == nil {
			c.terms = map[ulid.ULID]LeaseRow{}
		}
		c.terms[after.Holder] = *after
	}
}

// checkLeaseSuccession checks what happens to an existing lease: taken over,
// deleted or renewed.
func (c *Checker) checkLeaseSuccession(e *Event, old LeaseRow, after *LeaseRow) {
	live := old.ExpiresAt.After(e.Time)
	switch {
	case after == nil && live && !e.Worker.IsZero() && e.Worker != old.Holder:
		c.report(LeaderUniqueness, fmt.Sprintf("worker %s deleted the lease of %s before it expired at %s",
			e.Worker, old.Holder, formatTime(old.ExpiresAt)), withLease(&old))
	case after == nil:
	case after.Holder != old.Holder && live:
		c.report(LeaderUniqueness, fmt.Sprintf("the lease of %s passed to %s before it expired at %s",
			old.Holder, after.Holder, formatTime(old.ExpiresAt)), withLease(&old), withLease(after))
	case after.Holder == old.Holder && after.ElectedAt.Equal(old.ElectedAt) && !live && *after != old:
		// Same term (elected_at kept): a renewal. A new elected_at is a new
		// term, as after deleting the expired row and inserting a new one.
		c.report(LeaderUniqueness, fmt.Sprintf("%s renewed its lease after it expired at %s",
			old.Holder, formatTime(old.ExpiresAt)), withLease(&old), withLease(after))
	}
}

// checkLeaseGrant checks a lease row written at time t.
func (c *Checker) checkLeaseGrant(t time.Time, old *LeaseRow, after LeaseRow) {
	if old != nil && *old == after {
		return
	}
	if ttl := c.params.LeaseTTL; ttl > 0 && after.ExpiresAt.Sub(t) > ttl {
		c.report(LeaderUniqueness, fmt.Sprintf("the lease of %s expires %v after it was written, more than the TTL %v",
			after.Holder, after.ExpiresAt.Sub(t), ttl), withLease(&after))
	}
	if w, known := c.workers[after.Holder]; known && !w.ShutdownAt.IsZero() {
		c.report(LeaderUniqueness, fmt.Sprintf("the lease was granted to %s, which was shut down at %s",
			after.Holder, formatTime(w.ShutdownAt)), withLease(&after), withWorkers(w))
	}
}

// dutiesStarted checks that leader duties run only under the doer's
// unexpired lease, and never while other duties are in progress.
func (c *Checker) dutiesStarted(e *Event) {
	if !c.leaseValid(e.Worker, e.Time) {
		c.report(LeaderUniqueness, fmt.Sprintf("worker %s began leader duties without holding an unexpired lease", e.Worker), withLease(c.lease))
	}
	if c.duty != nil {
		c.report(LeaderUniqueness, fmt.Sprintf("worker %s began leader duties while those of %s (seq %d) were in progress",
			e.Worker, c.duty.Worker, c.duty.Seq), withEvents(*c.duty))
	}
	d := *e
	c.duty = &d
}

// dutiesEnded closes the duties in progress.
func (c *Checker) dutiesEnded(e *Event) {
	if c.duty == nil || c.duty.Worker != e.Worker {
		c.report(WellFormed, fmt.Sprintf("worker %s ended leader duties it had not begun", e.Worker))
	}
	c.duty = nil
	c.checkPassSettled(e)
	c.checkBatchesSettled(e)
	c.checkRetentionPass(e)
	c.checkPassComplete(e)
}

// endDutiesOf drops the duties in progress of a process that stopped.
func (c *Checker) endDutiesOf(proc string) {
	if c.duty != nil && c.procKey(c.duty) == proc {
		c.duty = nil
	}
}
