//go:build mutants

package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/internal/mutant"
)

// TestEveryMutantIsCaught plants each bug and requires a failing seed
// within the first 300: the properties have the power to see every one.
func TestEveryMutantIsCaught(t *testing.T) {
	long.Test(t, "seeds until every planted bug is caught")
	// 500: lease-retaken-renews is first caught at seed 397 (make
	// mutants-mem's table); the others within 42.
	status, out, _ := runArgs(t, "-mutants", "-seeds", "500", "-parallel", "2")
	if status != 0 || strings.Contains(out, "SURVIVED") {
		t.Fatalf("a planted bug survived (status %d):\n%s", status, out)
	}
	for _, name := range mutant.Names {
		// store/pg's bugs need -store pg (interleaved or serial): planted
		// in memory they would survive, so the in-memory table leaves
		// them out.
		want := !mutant.PG(name) && !mutant.PGSerial(name)
		if in := strings.Contains(out, name); in != want {
			t.Errorf("mutant %s: in the in-memory table %v, want %v:\n%s", name, in, want, out)
		}
	}
}

// TestFailingSeedIsReportedWithItsTrace: -seeds runs without the trace, so
// a failing seed is run again with it; the report names the jobs and
// workers as a replay with -v does and ends with the trace's last lines.
func TestFailingSeedIsReportedWithItsTrace(t *testing.T) {
	defer mutant.Select("")
	status, out, _ := runArgs(t, "-mutant", mutant.PollTwice, "-seeds", "20", "-parallel", "2")
	if status != 1 {
		t.Fatalf("planted bug %s: status %d, want 1:\n%s", mutant.PollTwice, status, out)
	}
	if !strings.Contains(out, "trace lines:") || !strings.Contains(out, " tick local ") {
		t.Fatalf("the failing seed's report has no trace lines:\n%s", out)
	}
}

// TestRecordedMutantSeeds records seed 1 for two bugs: max-fetch, which
// seed 1 catches, is replayed alone and reported as recorded;
// output-in-clear, which it does not, is searched for as without the
// file and listed with the line to record.
func TestRecordedMutantSeeds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(path, []byte("# both at seed 1\n\nmax-fetch 1\noutput-in-clear 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseFlags([]string{"-mutants", "-seeds", "100", "-parallel", "2", "-mutant-seeds", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.onlyMutants = []string{mutant.MaxFetch, mutant.OutputInClear}
	var out strings.Builder
	if status := runMutants(cfg, &out); status != 0 {
		t.Fatalf("status %d:\n%s", status, out.String())
	}
	if !regexp.MustCompile(`(?m)^max-fetch +1 +1 +recorded `).MatchString(out.String()) {
		t.Errorf("max-fetch, caught by its recorded seed: no row saying so in:\n%s", out.String())
	}
	row := regexp.MustCompile(`(?m)^output-in-clear +(\d+) +\d+ +\d+/\d+ `).FindStringSubmatch(out.String())
	if row == nil || row[1] == "1" {
		t.Fatalf("output-in-clear, not caught by seed 1: no row of a search catching it later in:\n%s", out.String())
	}
	if stale := "\n  output-in-clear " + row[1] + "\n"; !strings.Contains(out.String(), stale) {
		t.Errorf("no line %q to record in:\n%s", stale, out.String())
	}
}
