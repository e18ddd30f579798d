package pg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// holdTx runs fn in a transaction and keeps it open, with its locks, until
// the returned release is called; release returns the transaction's error.
func holdTx(t *testing.T, s *pg.Store, fn func(store.Tx) error) (release func() error) {
	t.Helper()
	ready, done, result := make(chan error, 1), make(chan struct{}), make(chan error, 1)
	go func() {
		result <- s.InTx(context.Background(), func(tx store.Tx) error {
			err := fn(tx)
			ready <- err
			<-done
			return err
		})
	}()
	if err := <-ready; err != nil {
		close(done)
		<-result
		t.Fatal(err)
	}
	released := false
	release = func() error {
		if released {
			return nil
		}
		released = true
		close(done)
		return <-result
	}
	t.Cleanup(func() { _ = release() })
	return release
}

// quickly runs fn in a transaction that must not wait for another's locks:
// it fails after 10 s, far beyond what an unblocked statement takes.
func quickly(t *testing.T, s *pg.Store, what string, fn func(context.Context, store.Tx) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.InTx(ctx, func(tx store.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("%s (blocked by another transaction's locks?): %v", what, err)
	}
}

func registerWorkers(t *testing.T, s *pg.Store, n int) []ulid.ULID {
	t.Helper()
	ids := make([]ulid.ULID, n)
	quickly(t, s, "register workers", func(ctx context.Context, tx store.Tx) error {
		for i := range ids {
			ids[i] = newULID(t)
			if err := tx.RegisterWorker(ctx, ids[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return ids
}

// TestLeaseChecksDoNotWaitForTheLeader: while the leader's renewal holds
// the leader row locked, another worker's lease statements and its job path
// run without waiting: the original worker's ticks all queued behind that
// lock.
func TestLeaseChecksDoNotWaitForTheLeader(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 2)
	leader, other := ws[0], ws[1]
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	quickly(t, s, "elect", func(ctx context.Context, tx store.Tx) error {
		ok, err := tx.TryAcquireLease(ctx, leader, time.Minute)
		if err == nil && !ok {
			err = fmt.Errorf("the first worker did not get the free lease")
		}
		return err
	})
	release := holdTx(t, s, func(tx store.Tx) error {
		ok, err := tx.TryAcquireLease(t.Context(), leader, time.Minute)
		if err == nil && !ok {
			err = fmt.Errorf("the leader could not renew")
		}
		return err
	})
	quickly(t, s, "another worker's tick", func(ctx context.Context, tx store.Tx) error {
		if expired, err := tx.ExpireLease(ctx); err != nil || expired {
			return fmt.Errorf("ExpireLease = %v, %v; want false, nil", expired, err)
		}
		if ok, err := tx.TryAcquireLease(ctx, other, time.Minute); err != nil || ok {
			return fmt.Errorf("TryAcquireLease by a non-leader = %v, %v; want false, nil", ok, err)
		}
		if held, err := tx.LockLeaderDuties(ctx, other); err != nil || held {
			return fmt.Errorf("LockLeaderDuties by a non-leader = %v, %v; want false, nil", held, err)
		}
		jobs, err := tx.Reserve(ctx, other, []string{"q"}, 5)
		if err == nil && len(jobs) != 1 {
			err = fmt.Errorf("reserved %d jobs, want 1", len(jobs))
		}
		return err
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
}

// TestReserveSkipsLockedRows: two workers reserving at once get different
// jobs, the second without waiting for the first to commit.
func TestReserveSkipsLockedRows(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 2)
	var jobs []store.NewJob
	for i := range 4 {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: fmt.Appendf(nil, "%d", i)})
	}
	insert(t, s, jobs...)
	var first []store.Job
	release := holdTx(t, s, func(tx store.Tx) (err error) {
		first, err = tx.Reserve(t.Context(), ws[0], []string{"q"}, 2)
		return err
	})
	var second []store.Job
	quickly(t, s, "the second reservation", func(ctx context.Context, tx store.Tx) (err error) {
		second, err = tx.Reserve(ctx, ws[1], []string{"q"}, 5)
		return err
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || first[0].ID != jobs[0].ID || first[1].ID != jobs[1].ID {
		t.Fatalf("first reservation %v, want the two oldest jobs", first)
	}
	if len(second) != 2 || second[0].ID != jobs[2].ID || second[1].ID != jobs[3].ID {
		t.Fatalf("second reservation %v, want the two jobs the first did not lock", second)
	}
}

// TestLeaderDutiesWaitForTheLock: a second LockLeaderDuties waits (seen in
// pg_locks) until the first duty transaction ends, then re-reads the lease
// as committed meanwhile.
func TestLeaderDutiesWaitForTheLock(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 2)
	old, successor := ws[0], ws[1]
	quickly(t, s, "elect", func(ctx context.Context, tx store.Tx) error {
		_, err := tx.TryAcquireLease(ctx, old, time.Minute)
		return err
	})
	release := holdTx(t, s, func(tx store.Tx) error {
		held, err := tx.LockLeaderDuties(t.Context(), old)
		if err == nil && !held {
			err = fmt.Errorf("the leader's duty check failed")
		}
		if err != nil {
			return err
		}
		// Hand the lease over inside the duty transaction: the waiting
		// successor must see it once it gets the lock.
		if _, err := tx.ReleaseLease(t.Context(), old); err != nil {
			return err
		}
		ok, err := tx.TryAcquireLease(t.Context(), successor, time.Minute)
		if err == nil && !ok {
			err = fmt.Errorf("the successor did not get the released lease")
		}
		return err
	})
	result := make(chan error, 1)
	var held bool
	go func() {
		result <- s.InTx(t.Context(), func(tx store.Tx) (err error) {
			held, err = tx.LockLeaderDuties(t.Context(), successor)
			return err
		})
	}()
	key := pg.DutyKey(s)
	waitFor(t, "the second duty lock to wait", func() bool {
		var waiting int
		err := s.Pool().QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND ((classid::bigint << 32) | objid::bigint) = $1`, key).Scan(&waiting)
		return err == nil && waiting == 1
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	if !held {
		t.Fatal("after waiting, LockLeaderDuties did not see the lease committed meanwhile")
	}
}
