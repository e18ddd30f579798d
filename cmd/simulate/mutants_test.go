//go:build mutants

package main

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/internal/mutant"
)

// TestEveryMutantIsCaught plants each bug and requires a failing seed
// within the first 300: the properties have the power to see every one.
func TestEveryMutantIsCaught(t *testing.T) {
	status, out, _ := runArgs(t, "-mutants", "-seeds", "300", "-parallel", "2")
	if status != 0 || strings.Contains(out, "SURVIVED") {
		t.Fatalf("a planted bug survived (status %d):\n%s", status, out)
	}
	for _, name := range mutant.Names {
		if !strings.Contains(out, name) {
			t.Errorf("mutant %s missing from the table:\n%s", name, out)
		}
	}
}
