package worker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// With the vacuum duty on, the leader vacuums the jobs table beside its
// loop while jobs run (on PostgreSQL a real VACUUM, outside any
// transaction, once the statistics show the dead rows), records it for the
// next leader, and Run still returns with nothing left running.
func TestRunnerVacuumsBesideTheLoop(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("v")
		cfg.VacuumDeadRows, cfg.VacuumInterval = 10, 200*time.Millisecond
		var claimed, ended, failed atomic.Int64
		obs := engine.ObserverFunc(func(e engine.Event) {
			switch e.Kind {
			case engine.EventVacuumClaimed:
				claimed.Add(1)
			case engine.EventVacuumEnded:
				if ended.Add(1); e.Err != nil {
					failed.Add(1)
				}
			}
		})
		w, err := New(st, Options{Config: cfg, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler), Observer: obs})
		must(t, err)
		must(t, Handle(w, "v", func(context.Context, Job[payload]) error { return nil }))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		defer func() { cancel(); <-done }()
		client := NewClient(st, clockrng.NewRand(2))
		waitFor(t, "a vacuum that ended", func() bool {
			// Keep jobs coming, so that dead rows keep piling up until one
			// is counted.
			if _, err := EnqueueMany(context.Background(), client, make([]payload, 20), WithQueue("v")); err != nil {
				t.Fatal(err)
			}
			return ended.Load() > 0
		})
		cancel()
		must(t, <-done)
		done <- nil
		if failed.Load() == ended.Load() {
			t.Fatalf("every one of %d vacuums failed", ended.Load())
		}
		var last store.Vacuum
		must(t, st.InTx(context.Background(), func(tx store.Tx) (err error) { last, err = tx.LastVacuum(context.Background()); return err }))
		if last.DeadRows < cfg.VacuumDeadRows || claimed.Load() < ended.Load() {
			t.Fatalf("recorded vacuum %+v after %d claims and %d ends, want one at %d dead rows or more", last, claimed.Load(), ended.Load(), cfg.VacuumDeadRows)
		}
	})
}
