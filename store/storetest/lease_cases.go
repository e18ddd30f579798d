package storetest

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

const ttl = 5 * time.Second

// acquire runs TryAcquireLease and returns its answer.
func (h *harness) acquire(w ulid.ULID, ttl time.Duration) bool {
	h.t.Helper()
	return h.leaseOp(func(tx store.Tx) (bool, error) { return tx.TryAcquireLease(h.ctx, w, ttl) })
}

// leaseOp runs a lease operation that answers yes or no.
func (h *harness) leaseOp(op func(store.Tx) (bool, error)) bool {
	h.t.Helper()
	var ok bool
	h.do(func(tx store.Tx) (err error) { ok, err = op(tx); return err })
	return ok
}

// wantLease fails unless the lease row is want (nil: none).
func (h *harness) wantLease(want *store.Lease) {
	h.t.Helper()
	if got, want := fmtLease(h.state().Lease), fmtLease(want); got != want {
		h.t.Fatalf("lease = %v, want %v", got, want)
	}
}

// fmtLease formats a lease row, or "none", which no row formats as.
func fmtLease(l *store.Lease) string {
	if l == nil {
		return "none"
	}
	return format.Lease(l.WorkerID, l.ElectedAt, l.ExpiresAt)
}

var leaseCases = []testCase{
	{"AcquireWhenNone", func(h *harness) {
		w := h.worker()
		if !h.acquire(w, ttl) {
			h.t.Fatal("TryAcquireLease with no lease = false")
		}
		h.wantLease(&store.Lease{WorkerID: w, ElectedAt: h.now(), ExpiresAt: h.now().Add(ttl)})
	}},
	{"RenewByHolderKeepsElectedAt", func(h *harness) {
		w := h.worker()
		h.acquire(w, ttl)
		elected := h.now()
		h.clock.Advance(ttl - time.Microsecond)
		if !h.acquire(w, 7*time.Second+1500*time.Nanosecond) {
			h.t.Fatal("renewal by the holder before expiry = false")
		}
		h.wantLease(&store.Lease{WorkerID: w, ElectedAt: elected, ExpiresAt: h.now().Add(7*time.Second + time.Microsecond)})
	}},
	{"OtherWorkerCannotTake", func(h *harness) {
		w, other := h.worker(), h.worker()
		h.acquire(w, ttl)
		want := h.state().Lease
		if h.acquire(other, ttl) {
			h.t.Fatal("another worker took an unexpired lease")
		}
		h.clock.Advance(time.Hour)
		if h.acquire(other, ttl) {
			h.t.Fatal("another worker took an expired lease without ExpireLease")
		}
		h.wantLease(want)
	}},
	{"ExpiredLeaseOfMineIsNotRenewed", func(h *harness) {
		w := h.worker()
		h.acquire(w, ttl)
		want := h.state().Lease
		h.clock.Advance(ttl) // expires_at == now: expired
		if h.acquire(w, ttl) {
			h.t.Fatal("the holder renewed a lease that expired")
		}
		h.wantLease(want)
		if h.leaseOp(func(tx store.Tx) (bool, error) { return tx.LockLeaderDuties(h.ctx, w) }) {
			h.t.Fatal("LockLeaderDuties = true on an expired lease")
		}
	}},
	{"ExpireBoundary", func(h *harness) {
		w, other := h.worker(), h.worker()
		h.acquire(w, ttl)
		h.clock.Advance(ttl - time.Microsecond)
		if h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ExpireLease(h.ctx) }) {
			h.t.Fatal("ExpireLease deleted a lease a microsecond before expiry")
		}
		h.clock.Advance(time.Microsecond)
		if !h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ExpireLease(h.ctx) }) {
			h.t.Fatal("ExpireLease did not delete a lease at its expiry")
		}
		h.wantLease(nil)
		if h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ExpireLease(h.ctx) }) {
			h.t.Fatal("ExpireLease with no lease = true")
		}
		if !h.acquire(other, ttl) {
			h.t.Fatal("another worker could not take the expired-and-deleted lease")
		}
	}},
	{"AcquireNeedsLiveWorker", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { _, err := tx.TryAcquireLease(h.ctx, h.newID(), ttl); return err })
		h.wantErr(err, store.ErrNotFound, "acquire by unknown worker")
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		err = h.tx(func(tx store.Tx) error { _, err := tx.TryAcquireLease(h.ctx, w, ttl); return err })
		h.wantErr(err, store.ErrNotFound, "acquire by shut-down worker")
		h.wantLease(nil)
	}},
	{"Release", func(h *harness) {
		w, other := h.worker(), h.worker()
		if h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ReleaseLease(h.ctx, w) }) {
			h.t.Fatal("ReleaseLease with no lease = true")
		}
		h.acquire(w, ttl)
		if h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ReleaseLease(h.ctx, other) }) {
			h.t.Fatal("ReleaseLease by a non-holder = true")
		}
		h.clock.Advance(time.Hour)
		if !h.leaseOp(func(tx store.Tx) (bool, error) { return tx.ReleaseLease(h.ctx, w) }) {
			h.t.Fatal("ReleaseLease of my expired lease = false")
		}
		h.wantLease(nil)
	}},
	{"GetLeaseWhenNone", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { _, err := tx.GetLease(h.ctx); return err })
		h.wantErr(err, store.ErrNotFound, "GetLease with no lease")
	}},
	{"LockLeaderDuties", func(h *harness) {
		w, other := h.worker(), h.worker()
		lock := func(w ulid.ULID) bool {
			return h.leaseOp(func(tx store.Tx) (bool, error) { return tx.LockLeaderDuties(h.ctx, w) })
		}
		if lock(w) {
			h.t.Fatal("LockLeaderDuties with no lease = true")
		}
		h.acquire(w, ttl)
		if !lock(w) || lock(other) {
			h.t.Fatal("LockLeaderDuties: want true for the holder only")
		}
		h.clock.Advance(ttl - time.Microsecond)
		if !lock(w) {
			h.t.Fatal("LockLeaderDuties = false just before expiry")
		}
		// Duties and the lease check share one transaction.
		h.do(func(tx store.Tx) error {
			ok, err := tx.LockLeaderDuties(h.ctx, w)
			if err != nil || !ok {
				h.t.Errorf("LockLeaderDuties = %v, %v", ok, err)
			}
			_, err = tx.PromoteScheduledJobs(h.ctx)
			return err
		})
	}},
}
