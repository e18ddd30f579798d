package sim

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_traces.txt with the current trace hashes")

// goldenPath is at the repository root so that other drivers (a PostgreSQL
// run of the same seeds) can compare against it too.
var goldenPath = filepath.Join("..", "testdata", "golden_traces.txt")

var goldenSeeds = []uint64{1, 2, 3, 7, 42, 1000, 31337}

// TestSameSeedSameTrace runs sample seeds twice and requires byte-identical
// traces: nothing but the seed may decide what happens.
func TestSameSeedSameTrace(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		var a, b bytes.Buffer
		ra := Run(Draw(seed, FaultOverrides{}), Options{Trace: &a})
		rb := Run(Draw(seed, FaultOverrides{}), Options{Trace: &b})
		if ra.Err != nil {
			t.Fatalf("seed %d: %v", seed, ra.Err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("seed %d: traces differ; first difference:\n%s", seed, FirstDifference(a.String(), b.String()))
		}
		if ra.TraceHash != rb.TraceHash || ra.Lines != strings.Count(a.String(), "\n") {
			t.Fatalf("seed %d: hash %x/%x, lines %d for %d written", seed, ra.TraceHash, rb.TraceHash, ra.Lines, strings.Count(a.String(), "\n"))
		}
	}
}

// TestDifferentSeedsDiffer guards against a trace that ignores the seed.
func TestDifferentSeedsDiffer(t *testing.T) {
	seen := map[uint64]uint64{}
	for seed := uint64(1); seed <= 10; seed++ {
		h := Run(Draw(seed, FaultOverrides{}), Options{}).TraceHash
		if prev, ok := seen[h]; ok {
			t.Fatalf("seeds %d and %d have the same trace hash %x", prev, seed, h)
		}
		seen[h] = seed
	}
}

// TestGoldenTraceHashes compares the trace hashes of a few seeds with the
// recorded ones. A change of the worker, the stores or the simulator that
// changes behaviour changes them: check the new traces, then rerun with
// `go test ./sim -run Golden -update`.
func TestGoldenTraceHashes(t *testing.T) {
	var got strings.Builder
	fmt.Fprintln(&got, "# seed trace-hash lines (go test ./sim -run Golden -update rewrites this file)")
	for _, seed := range goldenSeeds {
		r := Run(Draw(seed, FaultOverrides{}), Options{})
		fmt.Fprintf(&got, "%d %016x %d\n", seed, r.TraceHash, r.Lines)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (create it with go test ./sim -run Golden -update)", err)
	}
	wantHashes, gotHashes := parseGolden(t, string(want)), parseGolden(t, got.String())
	for _, seed := range goldenSeeds {
		if wantHashes[seed] != gotHashes[seed] {
			t.Errorf("seed %d: trace %s, golden %s; inspect `go run ./cmd/simulate -seed %d -v`, then update with -update",
				seed, gotHashes[seed], wantHashes[seed], seed)
		}
	}
}

func parseGolden(t *testing.T, text string) map[uint64]string {
	t.Helper()
	out := map[uint64]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		seed, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || len(f) != 3 {
			t.Fatalf("golden line %q: want `seed hash lines`", line)
		}
		out[seed] = f[1] + " (" + f[2] + " lines)"
	}
	return out
}

// TestQuietRunIsTheSameRun runs sample seeds with and without the trace:
// leaving the trace out must change what is reported, never what happens.
func TestQuietRunIsTheSameRun(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		sc := Draw(seed, FaultOverrides{})
		traced, quiet := Run(sc, Options{}), Run(sc, Options{Quiet: true})
		if quiet.TraceHash != 0 || quiet.Lines != 0 || len(quiet.Tail) != 0 {
			t.Fatalf("seed %d: a quiet run traced %d lines (hash %x, tail %d)", seed, quiet.Lines, quiet.TraceHash, len(quiet.Tail))
		}
		if traced.Lines == 0 {
			t.Fatalf("seed %d: the traced run has no lines", seed)
		}
		if quiet.Events != traced.Events || quiet.Virtual != traced.Virtual || quiet.Settled != traced.Settled ||
			quiet.Faults != traced.Faults || quiet.Marks != traced.Marks || quiet.Failed() != traced.Failed() {
			t.Fatalf("seed %d: quiet run %d events, %v, settled %v, faults %v; traced %d, %v, %v, %v",
				seed, quiet.Events, quiet.Virtual, quiet.Settled, quiet.Faults, traced.Events, traced.Virtual, traced.Settled, traced.Faults)
		}
	}
}
