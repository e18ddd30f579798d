package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// -vacuum-dead-rows and -vacuum-interval (or their TICKWORK_ variables)
// set the vacuum duty; it is off by default, and an interval below a
// second is refused with the flag's name.
func TestVacuumFlags(t *testing.T) {
	cfg, err := parseRun(t, nil, nil).config()
	if err != nil || cfg.VacuumDeadRows != 0 {
		t.Fatalf("default: dead rows %d, %v; want the duty off", cfg.VacuumDeadRows, err)
	}
	f := parseRun(t, []string{"-vacuum-dead-rows", "10000"}, map[string]string{"TICKWORK_VACUUM_INTERVAL": "30s"})
	if cfg, err = f.config(); err != nil || cfg.VacuumDeadRows != 10000 || cfg.VacuumInterval != 30*time.Second {
		t.Fatalf("dead rows %d interval %v, %v; want 10000 and 30s", cfg.VacuumDeadRows, cfg.VacuumInterval, err)
	}
	var f2 runFlags
	fs := newFlagSet("worker run", runSynopsis, &strings.Builder{})
	f2.register(fs)
	if err := fs.Parse([]string{"-vacuum-interval", "10ms"}); err == nil || !strings.Contains(err.Error(), "vacuum-interval") {
		t.Fatalf("-vacuum-interval 10ms: %v, want a refusal naming the flag", err)
	}
}

// The readiness probe wraps the worker's store: it must pass the vacuum on.
func TestStoreProbeKeepsTheVacuum(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	probe := newStoreProbe(mem.New(func() time.Time { return now }), func() time.Time { return now })
	var st store.Store = probe
	v, ok := st.(store.Vacuumer)
	if !ok {
		t.Fatal("the probe hides the store's vacuum")
	}
	if err := v.VacuumJobs(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := probe.ready(time.Second); err != nil {
		t.Fatalf("a vacuum that reached the store leaves the probe not ready: %v", err)
	}
}
