package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// Every kind of network fault is in the first six of a plan, and the last
// fault starts early enough for a blackhole past the dead threshold to
// end inside the phase.
func TestPlanNetHasEveryKindAndEndsInTime(t *testing.T) {
	const d, dead = 40 * time.Second, 4 * time.Second
	for seed := uint64(1); seed <= 50; seed++ {
		plan := planNet(clockrng.NewRand(seed), d, dead)
		if len(plan) < int(netKinds) {
			t.Fatalf("seed %d: %d faults, want at least %d", seed, len(plan), netKinds)
		}
		seen := map[netKind]bool{}
		for _, p := range plan[:netKinds] {
			seen[p.kind] = true
		}
		if len(seen) != int(netKinds) {
			t.Errorf("seed %d: the first %d faults are %v, not every kind", seed, netKinds, plan[:netKinds])
		}
		if last := plan[len(plan)-1].at; last+dead+2500*time.Millisecond > d {
			t.Errorf("seed %d: the last fault at %v may outlast the %v phase", seed, last, d)
		}
	}
}

// scanLog finds the first line with the message at or after the time.
func TestScanLogFindsTheFirstLineAfter(t *testing.T) {
	log := `time=2026-12-05T21:18:07.100Z level=WARN msg="tickwork: listen connection lost; reconnecting" err=x
time=2026-12-05T21:18:09.250Z level=INFO msg="tickwork: listen connection restored"
time=2026-12-05T21:18:12.500Z level=WARN msg="tickwork: listen connection lost; reconnecting" err=y
`
	from := time.Date(2026, 12, 5, 21, 18, 8, 0, time.UTC)
	got, ok := scanLog(strings.NewReader(log), "listen connection lost", from)
	want := time.Date(2026, 12, 5, 21, 18, 12, 500_000_000, time.UTC)
	if !ok || !got.Equal(want) {
		t.Errorf("scanLog after %v: %v, %v; want %v", from, got, ok, want)
	}
	if _, ok := scanLog(strings.NewReader(log), "listen connection restored", want); ok {
		t.Error("scanLog found a line before its start")
	}
}

// spread renders the figures the report prints.
func TestSpread(t *testing.T) {
	if got := spread(nil); got != "never" {
		t.Errorf("spread(nil) = %q", got)
	}
	got := spread([]time.Duration{3 * time.Second, time.Second, 2 * time.Second})
	if want := "1s / 2s / 3s (min / median / max of 3)"; got != want {
		t.Errorf("spread = %q, want %q", got, want)
	}
}

// -net-faults needs a phase long enough for a blackhole past the dead
// threshold, and direct connections.
func TestNetFaultsOptions(t *testing.T) {
	for _, args := range [][]string{
		{"-net-faults", "-duration", "12s"},
		{"-net-faults", "-pgbouncer-url", "postgres://u@127.0.0.1:6432/db"},
	} {
		_, err := parseOptions(args, world(nil, true), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-net-faults") {
			t.Errorf("%q: error %v, want one naming -net-faults", args, err)
		}
	}
	o, err := parseOptions([]string{"-net-faults", "-duration", "40s"}, world(nil, true), io.Discard)
	if err != nil || !o.netFaults {
		t.Errorf("-net-faults -duration 40s: %+v, %v", o.netFaults, err)
	}
}
