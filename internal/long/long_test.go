package long

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that records a skip instead of ending the test.
type recorder struct {
	testing.TB
	skipped string
}

func (r *recorder) Helper()          {}
func (r *recorder) Skip(args ...any) { r.skipped = args[0].(string) }

func TestSkipsOnlyUnderShort(t *testing.T) {
	r := &recorder{TB: t}
	Test(r, "two million rows")
	if testing.Short() != (r.skipped != "") {
		t.Fatalf("under -short %v the test skipped with %q", testing.Short(), r.skipped)
	}
	if testing.Short() && !strings.Contains(r.skipped, "two million rows") {
		t.Fatalf("the skip %q does not say why", r.skipped)
	}
}

func TestCountIsShortOnlyUnderShort(t *testing.T) {
	want := 50
	if testing.Short() {
		want = 3
	}
	if got := Count(50, 3); got != want {
		t.Fatalf("Count(50, 3) = %d under -short %v, want %d", got, testing.Short(), want)
	}
	if got := Count(2, 3); got != 2 {
		t.Fatalf("Count(2, 3) = %d, want 2: the short count never exceeds the full one", got)
	}
}
