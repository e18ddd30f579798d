package engine

import (
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// A leader cut off from the store for longer than the lease TTL, whose
// expired lease another worker deleted meanwhile, takes a new lease when
// it is back: that is a new term (EventLeaseAcquired), not a renewal, even
// though its own transaction expired nothing and it still believed it led.
// Reported as a renewal, the history showed a lease renewed after it
// expired (the failover chaos run, docs/FAILOVER.md).
func TestLeaseRetakenAfterExpiryIsANewTerm(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	a, rec := e.core(cfg, 1)
	e.tick(a)
	if !a.isLeader() || rec.count(EventLeaseAcquired) != 1 {
		t.Fatalf("a did not become leader: %v", rec.events)
	}
	e.advance(cfg.LeaseTTL + time.Second)
	e.inTx(func(tx store.Tx) error { _, err := tx.ExpireLease(e.ctx); return err })
	e.tick(a)
	if n, r := rec.count(EventLeaseAcquired), rec.count(EventLeaseRenewed); n != 2 || r != 0 || !a.isLeader() {
		t.Fatalf("after its lease expired and was deleted: %d acquired, %d renewed (leader %v), want a second acquisition and no renewal",
			n, r, a.isLeader())
	}
	e.advance(time.Second)
	e.tick(a)
	if r := rec.count(EventLeaseRenewed); r != 1 {
		t.Fatalf("the next tick within the TTL: %d renewals, want 1", r)
	}
}
