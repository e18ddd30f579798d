//go:build mutants

package main

import (
	"fmt"
	"os"

	"github.com/tickwork/tickwork/internal/mutant"
)

// In a binary built with -tags mutants, TICKWORK_MUTANT selects a planted
// bug (internal/mutant), so that a live run (cmd/chaos -mutant) can show
// its checker catches it. Normal builds do not contain this file.
func init() {
	if err := mutant.Select(os.Getenv("TICKWORK_MUTANT")); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(exitUsage)
	}
}
