// Package long marks the tests that make check leaves out: the million-row
// plans, end-to-end binaries, thousands of seeds, interleaving on
// PostgreSQL, planted bugs, chaos, browsers and timed benchmarks. Under
// go test -short they are skipped with the reason given; make test runs
// them. Unavailable ends a test the machine cannot run. Test code only: binaries must not import it (it links testing).
package long

import (
	"os"
	"testing"
)

// Test skips t under -short, saying why it is long. Call it first in a
// long test, on one line, so that tests added beside it do not conflict.
func Test(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("long (-short skips it): " + why)
	}
}

// Count is full, or short under -short: how many seeds or checks a test
// that stays in the fast loop runs, fewer there.
func Count(full, short int) int {
	if testing.Short() {
		return min(full, short)
	}
	return full
}

// Unavailable ends t for want of what msg names (a database, a program
// the machine lacks): a failure under CI, which must run every test, and a
// skip elsewhere, so that a newcomer's run says what to install.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
