package pg_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestRateHoldsWithConcurrentReservers: eight workers reserve at once from
// a queue allowed 3 starts per 10 s, round after round, the store's clock
// moving 4 s a round; no window of 10 s holds more than 3 starts, and
// every 10 s window admits its 3 while jobs wait, although the reservers
// skip each other's slots rather than wait for them.
func TestRateHoldsWithConcurrentReservers(t *testing.T) {
	var clock atomic.Int64 // µs since the epoch below
	epoch := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := pgtest.Open(t, func() time.Time { return epoch.Add(time.Duration(clock.Load()) * time.Microsecond) })
	ws := registerWorkers(t, s, 8)
	var jobs []store.NewJob
	for range 60 {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	}
	insert(t, s, jobs...)
	quickly(t, s, "rate", func(ctx context.Context, tx store.Tx) error { return tx.SetQueueRate(ctx, "q", 3, 10*time.Second) })
	var starts []time.Time
	for round := range 12 {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Go(func() {
				err := s.InTx(t.Context(), func(tx store.Tx) error {
					js, err := tx.Reserve(t.Context(), w, []string{"q", "other"}, 10)
					mu.Lock()
					for _, j := range js {
						starts = append(starts, j.StartedAt)
					}
					mu.Unlock()
					return err
				})
				if err != nil {
					t.Errorf("round %d: reserve: %v", round, err)
				}
			})
		}
		wg.Wait()
		clock.Add((4 * time.Second).Microseconds())
	}
	// Rounds at 0, 4, 8 … 44 s: a slot stamped at t frees at t + 12 s (the
	// first round past t + 10 s), so 3 starts every third round.
	if len(starts) != 12 {
		t.Errorf("%d starts in 48 s of store time, want 12", len(starts))
	}
	for _, end := range starts {
		n := 0
		for _, s := range starts {
			if s.After(end.Add(-10*time.Second)) && !s.After(end) {
				n++
			}
		}
		if n > 3 {
			t.Fatalf("%d starts in the 10 s ending %s, over a rate of 3: %v", n, end, starts)
		}
	}
}
