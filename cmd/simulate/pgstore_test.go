package main

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestStorePGComparesTraces runs seeds with -store pg: each runs on the
// in-memory store and on PostgreSQL, and the summary must report no seed
// whose traces differ. The long run (50 seeds) is sim's
// TestPostgresTracesMatchMem; this one checks the command's wiring.
func TestStorePGComparesTraces(t *testing.T) {
	url := pgtest.URL(t)
	status, out, errOut := runArgs(t, "-store", "pg", "-database-url", url, "-seeds", "4", "-parallel", "2")
	if status != 0 || !strings.Contains(out, "seeds 4 (from 1), failed 0,") {
		t.Fatalf("simulate -store pg: exit status %d\n%s%s", status, out, errOut)
	}
}

// TestStorePGNeedsADatabase: without a URL the run fails with a message
// naming what is missing instead of silently simulating the memory store.
func TestStorePGNeedsADatabase(t *testing.T) {
	status, out, _ := runArgs(t, "-store", "pg", "-database-url", "", "-seeds", "1", "-parallel", "1")
	if status != 1 || !strings.Contains(out, "-store pg needs -database-url or DATABASE_URL") {
		t.Fatalf("exit status %d, output:\n%s", status, out)
	}
}
