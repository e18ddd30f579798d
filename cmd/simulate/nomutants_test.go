//go:build !mutants

package main

import (
	"strings"
	"testing"
)

// Without the mutants build tag no bug can be planted: asking for one is a
// usage error that names the tag. (mutants_test.go covers the tagged build.)
func TestMutantsNeedTheBuildTag(t *testing.T) {
	if status, out, _ := runArgs(t, "-mutants"); status != 2 || !strings.Contains(out, "-tags mutants") {
		t.Errorf("-mutants without the tag: status %d, output %q", status, out)
	}
	if status, _, errOut := runArgs(t, "-mutant", "max-fetch", "-seed", "1"); status != 2 || !strings.Contains(errOut, "-tags mutants") {
		t.Errorf("-mutant without the tag: status %d, stderr %q", status, errOut)
	}
}
