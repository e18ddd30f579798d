// Package testpanic helps tests of invariants that panic. Test code only:
// binaries must not import it (it links testing).
package testpanic

import (
	"fmt"
	"strings"
	"testing"
)

// Want runs fn and fails t unless fn panics with a message containing want.
func Want(t testing.TB, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Fatalf("panic %v, want one saying %q", r, want)
		}
	}()
	fn()
}
