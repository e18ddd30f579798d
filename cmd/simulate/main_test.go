package main

import (
	"bytes"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// -parallel runs seeds on goroutines; none may outlive a run (pgtest.Main
// checks with goleak, and removes a PostgreSQL container it started).
func TestMain(m *testing.M) {
	debug.SetGCPercent(sim.GCPercent) // as main does
	pgtest.Main(m)
}

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestReplayPrintsTheSameTraceTwice(t *testing.T) {
	s1, a, _ := runArgs(t, "-seed", "3", "-v")
	s2, b, _ := runArgs(t, "-seed", "3", "-v")
	if s1 != s2 || a != b {
		t.Fatalf("two replays of seed 3 differ (status %d, %d)", s1, s2)
	}
	if !strings.HasPrefix(a, "seed 3 workers ") || !strings.Contains(a, "fault crash") {
		t.Fatalf("the trace does not start with the scenario's settings:\n%.300s", a)
	}
}

func TestSeedsSummaryAndExitStatus(t *testing.T) {
	status, out, _ := runArgs(t, "-seeds", "12", "-from", "5", "-parallel", "2", "-check-determinism")
	m := regexp.MustCompile(`seeds 12 \(from 5\), failed (\d+),`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line in:\n%s", out)
	}
	failed, _ := strconv.Atoi(m[1])
	if (failed > 0) != (status == 1) {
		t.Fatalf("failed %d seeds but exit status %d", failed, status)
	}
	if strings.Contains(out, "NOT deterministic") {
		t.Fatalf("a seed was not deterministic:\n%s", out)
	}
	for _, want := range []string{"faults injected", "coverage", "stall past the dead threshold", "seeds/s", "per wall second"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if failed > 0 && !strings.Contains(out, "replay: go run ./cmd/simulate -seed ") {
		t.Errorf("a failure is reported without its replay command:\n%s", out)
	}
}

func TestBadFlagsAreRejected(t *testing.T) {
	for _, args := range [][]string{
		{"-faults=-nosuchfault"},
		{"-seeds", "0"},
		{"-seeds", "3", "extra"},
		{"-scenario", "{not json"},
		{"-store", "sqlite"},
	} {
		if status, _, _ := runArgs(t, args...); status != 2 {
			t.Errorf("simulate %q: exit status %d, want 2", args, status)
		}
	}
}

func TestReplayCommandCarriesOverrides(t *testing.T) {
	cfg, err := parseFlags([]string{"-workers", "3", "-duration", "10s", "-faults=-crash,+stall"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.replayCommand(77)
	want := "go run ./cmd/simulate -seed 77 -v -workers 3 -duration 10s -faults=-crash,+stall"
	if got != want {
		t.Fatalf("replay command %q, want %q", got, want)
	}
	sc := cfg.scenarioFor(77)
	if sc.Workers != 3 || sc.Chaos.String() != "10s" || sc.On(0) || !sc.On(1) {
		t.Fatalf("overrides not applied: workers %d chaos %v crash %v stall %v", sc.Workers, sc.Chaos, sc.On(0), sc.On(1))
	}
}

// TestMissedMarksFailLongRuns: a long run that never reached a coverage
// mark fails, a short one or one with forced faults only reports the gap.
func TestMissedMarksFailLongRuns(t *testing.T) {
	gap := []string{"results recorded after the linger"}
	for _, c := range []struct {
		seeds  int
		faults string
		gaps   []string
		fail   bool
	}{
		{1000, "", gap, true},
		{999, "", gap, false},
		{1000, "-shutdown", gap, false},
		{10000, "", nil, false},
	} {
		if got := marksMissed(config{faults: c.faults}, c.seeds, c.gaps); got != c.fail {
			t.Errorf("%d seeds, -faults %q, gaps %v: fails %v, want %v", c.seeds, c.faults, c.gaps, got, c.fail)
		}
	}
}
