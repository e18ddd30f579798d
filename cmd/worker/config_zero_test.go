package main

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/workerengine"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A flag set to zero where zero is a value of its own (no retries, no
// snoozes, no drain) reaches the worker as zero, not as the default a
// zero Config field takes.
func TestZeroFlagsReachTheWorker(t *testing.T) {
	f := parseRun(t, []string{"-max-retries", "0", "-max-snoozes", "0", "-drain-timeout", "0s"}, nil)
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	got := coreConfig(t, cfg)
	if got.MaxRetries != 0 || got.MaxSnoozes != 0 || got.DrainTimeout != 0 {
		t.Fatalf("the worker runs with MaxRetries %d, MaxSnoozes %d, DrainTimeout %v; want all zero", got.MaxRetries, got.MaxSnoozes, got.DrainTimeout)
	}
}

// coreConfig returns the configuration a worker made with cfg runs its
// core with.
func coreConfig(t *testing.T, cfg worker.Config) worker.Config {
	t.Helper()
	w, err := worker.New(mem.New(time.Now), worker.Options{Config: cfg, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return workerengine.Of(w).CoreConfig()
}
