//go:build mutants

package main

import (
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
