package pg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestLeaseWriteRechecksLiveness: TryAcquireLease reads, then writes in a
// second statement. A worker declared dead between the two (it was paused)
// must neither take a free lease nor renew its own.
func TestLeaseWriteRechecksLiveness(t *testing.T) {
	ctx := context.Background()
	s := pgtest.Open(t, nil)
	rnd := clockrng.NewRand(7)
	w := clockrng.NewULID(time.Now(), rnd)
	do := func(fn func(store.Tx) error) {
		t.Helper()
		if err := s.InTx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	do(func(tx store.Tx) error { return tx.RegisterWorker(ctx, w) })
	do(func(tx store.Tx) error {
		held, err := tx.TryAcquireLease(ctx, w, time.Minute)
		if err == nil && !held {
			err = errors.New("a live worker did not get the free lease")
		}
		return err
	})
	do(func(tx store.Tx) error { return tx.ShutdownWorker(ctx, w) })

	if n, err := pg.WriteLease(ctx, s, w, time.Minute, true); err != nil || n != 0 {
		t.Fatalf("renewal by a dead worker wrote %d rows (err %v), want 0", n, err)
	}
	do(func(tx store.Tx) error { _, err := tx.ReleaseLease(ctx, w); return err })
	if n, err := pg.WriteLease(ctx, s, w, time.Minute, false); err != nil || n != 0 {
		t.Fatalf("a dead worker took the free lease: %d rows (err %v), want 0", n, err)
	}
	do(func(tx store.Tx) error {
		if _, err := tx.GetLease(ctx); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetLease = %v, want ErrNotFound", err)
		}
		return nil
	})
}
