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

// RunCompared runs sc on the in-memory store and then on the store other
// makes, and returns the run on other with where its trace first left the
// in-memory one ("" when the traces are identical). It is how the
// simulator shows that what it proves of the in-memory store holds for
// another store, PostgreSQL in particular.
func RunCompared(sc Scenario, other NewBackend) (Result, string) {
	var want, got strings.Builder
	Run(sc, Options{Trace: &want, Backend: MemBackend})
	r := Run(sc, Options{Trace: &got, Backend: other})
	return r, FirstDifference(want.String(), got.String())
}
