package sim

import (
	"fmt"
	"strings"
)

// FirstDifference describes the first line where traces a and b part,
// showing a's line then b's, or says which trace is longer when one is a
// prefix of the other. It returns "" for identical traces.
func FirstDifference(a, b string) string {
	if a == b {
		return ""
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one trace has %d lines, the other %d", len(la), len(lb))
}
