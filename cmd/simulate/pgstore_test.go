package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/localpg"
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

// TestStorePGUnreachableIsAUsageError: a database that does not answer is
// reported as such (status 2), not as a failing seed with a replay
// command that cannot reproduce it.
func TestStorePGUnreachableIsAUsageError(t *testing.T) {
	status, out, errOut := runArgs(t, "-store", "pg", "-database-url", "postgres://postgres@127.0.0.1:1/none?sslmode=disable", "-seeds", "2", "-parallel", "2")
	if status != 2 || out != "" || !strings.Contains(errOut, "-store pg:") || !strings.Contains(errOut, "127.0.0.1") {
		t.Fatalf("exit status %d, stdout %q, stderr %q", status, out, errOut)
	}
}

// TestStorePGNeedsADatabase: with no database to be found the run says
// how to give one (status 2) instead of simulating the memory store.
func TestStorePGNeedsADatabase(t *testing.T) {
	saved := localpg.Default
	t.Cleanup(func() { localpg.Default = saved })
	localpg.Default = localpg.Finder{
		Getenv: func(string) string { return "" },
		Probe:  func(context.Context, string) error { return errors.New("connection refused") },
	}
	status, out, errOut := runArgs(t, "-store", "pg", "-seeds", "1", "-parallel", "1")
	if status != 2 || out != "" || !strings.Contains(errOut, "pass -database-url or set DATABASE_URL") {
		t.Fatalf("exit status %d, stdout %q, stderr %q", status, out, errOut)
	}
}
