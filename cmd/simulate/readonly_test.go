package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestStorePGDropsReadOnlyConnections: with the read-only fault forced on,
// the serial run on PostgreSQL demotes its connection, store/pg drops it,
// the traces still equal the in-memory ones, and seeds reach the mark.
func TestStorePGDropsReadOnlyConnections(t *testing.T) {
	url := pgtest.URL(t)
	status, out, errOut := runArgs(t, "-store", "pg", "-database-url", url, "-seeds", "4", "-parallel", "2", "-faults", "+read-only")
	if status != 0 || !strings.Contains(out, "seeds 4 (from 1), failed 0,") {
		t.Fatalf("simulate -store pg -faults +read-only: exit status %d\n%s%s", status, out, errOut)
	}
	mark := regexp.MustCompile(regexp.QuoteMeta(sim.MarkReadOnlyDropped.String()) + ` +(\d+)`).FindStringSubmatch(out)
	if mark == nil || mark[1] == "0" {
		t.Fatalf("no seed reached %q:\n%s", sim.MarkReadOnlyDropped, out)
	}
}

// TestReadOnlyMarkOnlyWherePooled: the in-memory run neither lists the
// read-only fault and its mark nor counts the mark as a gap.
func TestReadOnlyMarkOnlyWherePooled(t *testing.T) {
	_, out, _ := runArgs(t, "-seeds", "2", "-parallel", "2")
	for _, name := range []string{sim.MarkReadOnlyDropped.String(), sim.ReadOnly.String()} {
		if strings.Contains(out, name) {
			t.Fatalf("the in-memory summary lists %q:\n%s", name, out)
		}
	}
	if !strings.Contains(out, sim.HalfOpen.String()) {
		t.Fatalf("the in-memory summary lacks the fault kind %q:\n%s", sim.HalfOpen, out)
	}
}
