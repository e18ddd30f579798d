// Package long marks the tests that make check leaves out: the million-row
// plans, end-to-end binaries, thousands of seeds, interleaving on
// PostgreSQL, planted bugs, chaos, browsers and timed benchmarks. Under
// go test -short they are skipped with the reason given; make test runs
// them. Test code only: binaries must not import it (it links testing).
package long

import "testing"

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
