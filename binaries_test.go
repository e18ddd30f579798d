package tickwork

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// binaries are the programs users run; test code must not be linked into
// them (STYLE: keep test suites out of what cmd/ links).
var binaries = []string{"./cmd/simulate", "./cmd/worker", "./cmd/chaos"}

// testOnly are packages that exist for tests: the standard testing package,
// the property-testing library and the stores' conformance suites.
var testOnly = []string{
	"testing",
	"pgregory.net/rapid",
	"github.com/tickwork/tickwork/store/storetest",
	"github.com/tickwork/tickwork/store/pg/pgtest",
	"github.com/tickwork/tickwork/internal/testpanic",
}

// TestBinariesLinkNoTestCode fails when a binary, built with or without
// the mutants tag, depends on a test-only package.
func TestBinariesLinkNoTestCode(t *testing.T) {
	for _, tags := range []string{"", "mutants"} {
		args := append([]string{"list", "-tags", tags, "-deps"}, binaries...)
		out, err := exec.Command("go", args...).Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, "github.com/tickwork/tickwork/store") {
			t.Fatalf("go %s listed %d packages without the store: not a dependency list", strings.Join(args, " "), len(deps))
		}
		for _, p := range testOnly {
			if slices.Contains(deps, p) {
				t.Errorf("tags %q: %v link %s; move what they need out of test code", tags, binaries, p)
			}
		}
	}
}
