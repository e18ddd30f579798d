package tickworktest_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNotLinkedIntoBinaries: the kit imports package testing, which the
// binaries under cmd/ must not link.
func TestNotLinkedIntoBinaries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tickwork/tickwork/cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list listed %d packages; the check would prove nothing", len(deps))
	}
	for _, d := range deps {
		if d == "github.com/tickwork/tickwork/tickworktest" {
			t.Errorf("a binary under cmd/ links %s", d)
		}
	}
}
