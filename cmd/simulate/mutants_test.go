//go:build mutants

package main

import (
	"fmt"
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
	status, out, _ := runArgs(t, "-mutants", "-seeds", "300", "-parallel", "2")
	if status != 0 || strings.Contains(out, "SURVIVED") {
		t.Fatalf("a planted bug survived (status %d):\n%s", status, out)
	}
	for _, name := range mutant.Names {
		// store/pg's bugs need -store pg -interleave: planted in memory
		// they would survive, so the in-memory table leaves them out.
		if in := strings.Contains(out, name); in == mutant.PG(name) {
			t.Errorf("mutant %s: in the in-memory table %v, want %v:\n%s", name, in, !mutant.PG(name), out)
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

// TestRecordedMutantSeeds records seed 1 for every bug: those it catches
// are replayed alone and reported as recorded; the others are searched for
// as without the file and listed with the line to record.
func TestRecordedMutantSeeds(t *testing.T) {
	var file strings.Builder
	file.WriteString("# every bug at seed 1\n\n")
	for _, name := range mutant.Names {
		fmt.Fprintf(&file, "%s 1\n", name)
	}
	path := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	status, out, _ := runArgs(t, "-mutants", "-seeds", "1000", "-parallel", "2", "-mutant-seeds", path)
	if status != 0 {
		t.Fatalf("status %d:\n%s", status, out)
	}
	recorded, searched := 0, 0
	for _, name := range mutant.Names {
		if mutant.PG(name) || mutant.PGSerial(name) {
			continue // planted only in the runs on PostgreSQL
		}
		row := regexp.MustCompile(`(?m)^` + name + ` +(\d+) +(\d+) +(\S+) `).FindStringSubmatch(out)
		if row == nil {
			t.Errorf("bug %s: no row in:\n%s", name, out)
			continue
		}
		if row[1] == "1" {
			recorded++
			if row[2] != "1" || row[3] != "recorded" {
				t.Errorf("bug %s caught by its recorded seed: row %q, want 1 seed run, recorded", name, row[0])
			}
			continue
		}
		searched++
		if stale := "\n  " + name + " " + row[1] + "\n"; !strings.Contains(out, stale) {
			t.Errorf("bug %s caught at seed %s by the search: no line %q to record in:\n%s", name, row[1], stale, out)
		}
	}
	if recorded == 0 || searched == 0 {
		t.Errorf("%d bugs caught by the recorded seed, %d by a search: want some of each", recorded, searched)
	}
}
