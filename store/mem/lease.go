package mem

import (
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

func (t *tx) ExpireLease(context.Context) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if l := t.s.lease; l == nil || l.ExpiresAt.After(t.now) || mutant.On(mutant.RenewExpiredLease) {
		return false, nil // the mutant leaves expired leases for their holder to renew
	}
	t.setLease(nil)
	return true, nil
}

func (t *tx) TryAcquireLease(_ context.Context, worker ulid.ULID, ttl time.Duration) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if _, ok := t.s.liveWorker(worker); !ok {
		return false, fmt.Errorf("acquire lease for worker %s: no live worker: %w", worker, store.ErrNotFound)
	}
	expires := t.now.Add(ttl.Truncate(time.Microsecond))
	l := t.s.lease
	switch {
	case l == nil:
		t.setLease(&store.Lease{WorkerID: worker, ElectedAt: t.now, ExpiresAt: expires})
		return true, nil
	case l.WorkerID == worker && (l.ExpiresAt.After(t.now) || mutant.On(mutant.RenewExpiredLease)):
		t.setLease(&store.Lease{WorkerID: worker, ElectedAt: l.ElectedAt, ExpiresAt: expires})
		return true, nil
	}
	return false, nil
}

func (t *tx) ReleaseLease(_ context.Context, worker ulid.ULID) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if l := t.s.lease; l == nil || l.WorkerID != worker {
		return false, nil
	}
	t.setLease(nil)
	t.notify(store.Notification{Channel: store.ChannelStepdown})
	return true, nil
}

func (t *tx) GetLease(context.Context) (store.Lease, error) {
	if err := t.check(); err != nil {
		return store.Lease{}, err
	}
	if t.s.lease == nil {
		return store.Lease{}, fmt.Errorf("get lease: %w", store.ErrNotFound)
	}
	return *t.s.lease, nil
}

// LockLeaderDuties needs no lock of its own: transactions are serialised.
func (t *tx) LockLeaderDuties(_ context.Context, worker ulid.ULID) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	l := t.s.lease
	return l != nil && l.WorkerID == worker && l.ExpiresAt.After(t.now), nil
}
