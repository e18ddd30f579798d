package pg_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// waitForLockWait returns once some backend waits for an advisory lock,
// and fails the test if none does within 10 s.
func waitForLockWait(t *testing.T, s *pg.Store) {
	t.Helper()
	waitForLock(t, s, "advisory", "a queue's lock")
}

// waitForLock returns once some backend waits for a lock of locktype (as
// pg_locks names it), and fails the test, naming what, if none does
// within 10 s.
func waitForLock(t *testing.T, s *pg.Store, locktype, what string) {
	t.Helper()
	for range 1000 {
		var waiting bool
		err := s.Pool().QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = $1 AND NOT granted)`, locktype).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no transaction came to wait for %s", what)
}

// inBackground runs fn in a transaction of its own and returns a channel
// that delivers its error.
func inBackground(s *pg.Store, fn func(ctx context.Context, tx store.Tx) error) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(context.Background(), func(tx store.Tx) error { return fn(context.Background(), tx) })
	}()
	return done
}

// TestReserveBehindAPauseSeesIt: a reservation that begins while a pause
// is being committed waits for it, and then reads it: it reserves nothing
// (the statement that reserves starts after the queue's lock is granted,
// so its snapshot holds the pause).
func TestReserveBehindAPauseSeesIt(t *testing.T) {
	s := pgtest.Open(t, nil)
	w := registerWorkers(t, s, 1)[0]
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	release := holdTx(t, s, func(tx store.Tx) error { return tx.PauseQueue(t.Context(), "q") })
	var got []store.Job
	reserving := inBackground(s, func(ctx context.Context, tx store.Tx) (err error) {
		got, err = tx.Reserve(ctx, w, []string{"q"}, 5)
		return err
	})
	waitForLockWait(t, s)
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-reserving; err != nil || len(got) != 0 {
		t.Fatalf("reservation behind a pause: %v, %v; want nothing", jobIDs(got), err)
	}
}

// TestPauseWaitsForReservationsInFlight: a pause commits only after the
// reservations of its queue in flight have, so none commits after it.
func TestPauseWaitsForReservationsInFlight(t *testing.T) {
	s := pgtest.Open(t, nil)
	w := registerWorkers(t, s, 1)[0]
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	release := holdTx(t, s, func(tx store.Tx) error {
		jobs, err := tx.Reserve(t.Context(), w, []string{"q"}, 5)
		if err == nil && len(jobs) != 1 {
			err = fmt.Errorf("reserved %d jobs, want 1", len(jobs))
		}
		return err
	})
	pausing := inBackground(s, func(ctx context.Context, tx store.Tx) error { return tx.PauseQueue(ctx, "q") })
	waitForLockWait(t, s)
	select {
	case err := <-pausing:
		t.Fatalf("the pause committed (%v) while a reservation of its queue was in flight", err)
	default:
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-pausing; err != nil {
		t.Fatal(err)
	}
}

// TestLimitHoldsWithConcurrentReservers: eight workers reserve from a
// queue limited to 3 at once, round after round, finishing what they got
// between rounds; no round runs more than 3, and each runs exactly 3 while
// enough jobs wait.
func TestLimitHoldsWithConcurrentReservers(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 8)
	limitedQueue(t, s, 30, 3)
	for round := range 10 {
		var mu sync.Mutex
		got := map[ulid.ULID][]ulid.ULID{}
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Go(func() {
				err := s.InTx(t.Context(), func(tx store.Tx) error {
					js, err := tx.Reserve(t.Context(), w, []string{"q", "other"}, 10)
					mu.Lock()
					got[w] = jobIDs(js)
					mu.Unlock()
					return err
				})
				if err != nil {
					t.Errorf("round %d: reserve: %v", round, err)
				}
			})
		}
		wg.Wait()
		total := 0
		for w, ids := range got {
			total += len(ids)
			quickly(t, s, "complete", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: ids})
				return err
			})
		}
		if total != 3 {
			t.Fatalf("round %d: %d reserved under a limit of 3 with %d jobs waiting", round, total, 30-3*round)
		}
	}
}

// TestAPassThatReplacesItsJobsTakesNoLimitLock: while a reservation that
// counts a limited queue's running jobs holds the queue's limit lock, a
// job pass that asks for no more jobs than it completes of the queue
// reserves them without waiting; one that asks for more waits for the
// lock, and then counts what the holder started.
func TestAPassThatReplacesItsJobsTakesNoLimitLock(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 3)
	limitedQueue(t, s, 10, 4)
	var first []store.Job
	quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
		first, err = tx.Reserve(ctx, ws[0], []string{"q"}, 2)
		return err
	})
	release := holdTx(t, s, func(tx store.Tx) error {
		got, err := tx.Reserve(t.Context(), ws[1], []string{"q"}, 1)
		if err == nil && len(got) != 1 {
			err = fmt.Errorf("the counting reservation took %d jobs, want 1", len(got))
		}
		return err
	})
	pass := func(w ulid.ULID, done []store.Job, limit int) (store.JobPassResult, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		return store.RunJobPass(ctx, s, store.JobPass{Worker: w,
			Complete: []store.Completion{{Worker: w, IDs: jobIDs(done)}}, Queues: []string{"q"}, Limit: limit})
	}
	res, err := pass(ws[0], first, 2)
	if err != nil || len(res.Reserved) != 2 {
		t.Fatalf("a pass replacing its 2 jobs while another reservation held the limit lock: %v, %d jobs; want 2 without waiting", err, len(res.Reserved))
	}
	type answer struct {
		res store.JobPassResult
		err error
	}
	passing := make(chan answer, 1)
	go func() {
		res, err := pass(ws[2], nil, 2)
		passing <- answer{res, err}
	}()
	waitForLockWait(t, s)
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if a := <-passing; a.err != nil || len(a.res.Reserved) != 1 {
		t.Fatalf("a pass asking for 2 more with 3 of a limit of 4 running: %v, %d jobs; want 1", a.err, len(a.res.Reserved))
	}
}

// limitedQueue inserts n jobs of queue q and limits q to limit.
func limitedQueue(t *testing.T, s *pg.Store, n, limit int) {
	t.Helper()
	var jobs []store.NewJob
	for range n {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	}
	insert(t, s, jobs...)
	quickly(t, s, "limit", func(ctx context.Context, tx store.Tx) error { return tx.SetQueueLimit(ctx, "q", limit) })
}
