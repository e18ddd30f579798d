package sim

import (
	"flag"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/internal/mutant"
)

// drawScenario builds a scenario field by field through rapid, starting
// from the one the drawn seed gives, so that a failure shrinks towards a
// small one: fewer workers and jobs, a shorter chaos phase, fault kinds off.
func drawScenario(t *rapid.T) Scenario {
	s := Draw(rapid.Uint64Range(0, 1<<20).Draw(t, "seed"), FaultOverrides{})
	s.Workers = rapid.IntRange(1, 5).Draw(t, "workers")
	s.Queues = rapid.IntRange(1, 3).Draw(t, "queues")
	s.Jobs = rapid.IntRange(0, 40).Draw(t, "jobs")
	s.BurstSize = rapid.IntRange(1, 25).Draw(t, "burst_size")
	s.Chaos = Dur(time.Duration(rapid.IntRange(0, 40).Draw(t, "chaos_seconds")) * time.Second)
	s.MaxConcurrent = rapid.IntRange(1, 5).Draw(t, "max_concurrent")
	s.MaxFetch = rapid.IntRange(1, 5).Draw(t, "max_fetch")
	s.MaxRetries = rapid.IntRange(0, 4).Draw(t, "max_retries")
	for i := range s.Faults {
		s.Faults[i].On = rapid.Bool().Draw(t, "fault_"+s.Faults[i].Kind)
	}
	s.Normalize()
	return s
}

var plant = flag.String("mutant", "", "plant this bug (with -tags mutants) to watch rapid shrink its failure")

// TestRapidScenarios explores scenarios with rapid; a failure is shrunk and
// printed as a command that replays it. With -tags mutants -mutant NAME it
// shows the smallest scenario that catches a planted bug.
func TestRapidScenarios(t *testing.T) {
	if err := mutant.Select(*plant); err != nil {
		t.Fatal(err)
	}
	defer mutant.Select("")
	replay := "go run ./cmd/simulate"
	if *plant != "" {
		replay = "go run -tags mutants ./cmd/simulate -mutant " + *plant
	}
	rapid.Check(t, func(t *rapid.T) {
		sc := drawScenario(t)
		r := Run(sc, Options{})
		if r.Failed() {
			t.Fatalf("%s%v\nlast trace lines:\n%s\nreplay: %s -v -scenario '%s'",
				r.Report, errOrEmpty(r.Err), joinLines(r.Tail), replay, sc.JSON())
		}
	})
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return "run error: " + err.Error()
}

func joinLines(lines []string) string {
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}

// TestScenarioJSONRoundTrip: a printed scenario replays as the same run.
func TestScenarioJSONRoundTrip(t *testing.T) {
	sc := Draw(99, FaultOverrides{})
	back, err := ParseScenario(sc.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if back.JSON() != sc.JSON() {
		t.Fatalf("round trip changed the scenario:\n%s\n%s", sc.JSON(), back.JSON())
	}
	if a, b := Run(sc, Options{}).TraceHash, Run(back, Options{}).TraceHash; a != b {
		t.Fatalf("replayed scenario traces %x, original %x", b, a)
	}
}
