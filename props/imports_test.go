package props

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNothingItChecks: the checkers judge the engine and the
// stores from their rows and events, so they import neither; a text both
// sides need comes from a package of its own.
func TestImportsNothingItChecks(t *testing.T) {
	const module = "github.com/tickwork/tickwork/"
	out, err := exec.Command("go", "list", "-deps", module+"props").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{module + "props": true, module + "clockrng": true, module + "internal/failreason": true, module + "internal/envelope": true}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, module) && !allowed[d] {
			t.Errorf("props imports %s", d)
		}
	}
}
