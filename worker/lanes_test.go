package worker

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// Three lanes are three workers in the store sharing MaxConcurrent 7
// (3, 2 and 2): with every handler held, 7 jobs run and no more; once
// released every job completes exactly once, and a stop shuts all three
// down.
func TestLanesShareTheWorkersConcurrency(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("held")
		cfg.MaxConcurrent, cfg.MaxFetch = 7, 5
		w, err := New(st, Options{Config: cfg, Rand: clockrng.NewRand(7), Logger: slog.New(slog.DiscardHandler), Lanes: 3})
		must(t, err)
		release := make(chan struct{})
		var running, ran atomic.Int32
		must(t, Handle(w, "held", func(ctx context.Context, _ Job[payload]) error {
			running.Add(1)
			defer running.Add(-1)
			<-release
			ran.Add(1)
			return nil
		}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		c := NewClient(st, clockrng.NewRand(8))
		const jobs = 40
		for i := range jobs {
			_, err := Enqueue(context.Background(), c, payload{N: i}, WithQueue("held"))
			must(t, err)
		}
		waitFor(t, "7 jobs running", func() bool { return running.Load() == 7 })
		if n := len(listJobs(t, st, store.JobFilter{Status: store.Running})); n != 7 {
			t.Fatalf("%d jobs running in the store with every lane full, want 7", n)
		}
		close(release)
		waitFor(t, "every job to complete", func() bool { return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == jobs })
		if n := ran.Load(); n != jobs {
			t.Errorf("handlers ran %d times for %d jobs", n, jobs)
		}
		cancel()
		must(t, <-done)
		workers := listWorkers(t, st)
		if len(workers) != 3 {
			t.Fatalf("%d workers registered by 3 lanes", len(workers))
		}
		for _, wk := range workers {
			if wk.ShutdownAt.IsZero() {
				t.Errorf("lane worker %s not shut down after Run returned", wk.ID)
			}
		}
	})
}

// Lanes must be 1 to MaxLanes and no more than MaxConcurrent.
func TestLanesOutOfRangeAreRefused(t *testing.T) {
	st := backends[0].open(t)
	cfg := runnerConfig("q")
	cfg.MaxConcurrent = 4
	for _, lanes := range []int{-1, MaxLanes + 1, 5} {
		_, err := New(st, Options{Config: cfg, Lanes: lanes})
		if err == nil || !strings.Contains(err.Error(), "Lanes is") {
			t.Errorf("Lanes %d with MaxConcurrent 4: %v, want a refusal naming Lanes", lanes, err)
		}
	}
}
