//go:build mutants

package main

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestReadOnlyKeptIsCaught: -store pg -mutants plants store/pg's bugs of
// the pool, only those, and the first seeds catch pg-readonly-kept.
func TestReadOnlyKeptIsCaught(t *testing.T) {
	url := pgtest.URL(t)
	status, out, errOut := runArgs(t, "-store", "pg", "-database-url", url, "-mutants", "-seeds", "10", "-parallel", "2")
	if status != 0 || !strings.Contains(out, mutant.PGReadOnlyKept) || strings.Contains(out, "SURVIVED") {
		t.Fatalf("simulate -store pg -mutants: exit status %d\n%s%s", status, out, errOut)
	}
	if strings.Contains(out, mutant.MaxFetch) || strings.Contains(out, mutant.PGNoSkipLocked) {
		t.Fatalf("the serial PostgreSQL table plants bugs that are not the pool's:\n%s", out)
	}
}
