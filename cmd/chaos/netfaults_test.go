package main

import (
	"io"
	"os"
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

// checkNet records a LISTEN silence the listener never noticed nor
// recovered from as two problems, and none once the worker's log shows
// both; a blackhole with no trace of its worker failing, being declared
// dead and starting again is three problems.
func TestCheckNetRecordsFaultsNotCameThrough(t *testing.T) {
	from := time.Date(2026, 12, 5, 21, 18, 8, 0, time.UTC)
	to := from.Add(3 * time.Second)
	logPath := t.TempDir() + "/w1.stderr"
	w1 := &slot{name: "w1", stderrs: []string{logPath}}
	silence := &netFault{kind: netListenSilent, slot: w1, wallFrom: from, wallTo: to, dbFrom: from, dbTo: to}
	r := &run{net: &netChaos{over: []*netFault{silence}}}
	r.checkNet(outcome{})
	if len(r.problems) != 2 {
		t.Fatalf("a silence nobody noticed: %d problems %v, want 2", len(r.problems), r.problems)
	}
	log := `time=2026-12-05T21:18:09.840Z level=WARN msg="tickwork: listen connection lost; reconnecting" err=x
time=2026-12-05T21:18:11.450Z level=INFO msg="tickwork: listen connection restored"
`
	if err := os.WriteFile(logPath, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	r = &run{net: &netChaos{over: []*netFault{silence}}}
	nf := r.checkNet(outcome{})
	if len(r.problems) != 0 || len(nf.noticed) != 1 || nf.noticed[0] != 1840*time.Millisecond {
		t.Fatalf("a silence noticed after 1.84 s: problems %v, figures %+v", r.problems, nf)
	}
	blackhole := &netFault{kind: netBlackhole, slot: &slot{name: "w2"}, wallFrom: from, wallTo: to, dbFrom: from, dbTo: to}
	r = &run{net: &netChaos{over: []*netFault{blackhole}}}
	r.checkNet(outcome{})
	if len(r.problems) != 3 {
		t.Fatalf("a blackhole its worker never came through: %d problems %v, want 3", len(r.problems), r.problems)
	}
}
