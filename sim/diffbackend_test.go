package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/mem"
)

// TestDiffBackendMatchesCommitHook runs seeds against the in-memory store
// twice: reporting commits through its hook, and through DiffBackend, which
// reads the rows back as it would from PostgreSQL. The traces must be
// identical: the seam that lets another store run these seeds loses nothing.
func TestDiffBackendMatchesCommitHook(t *testing.T) {
	viaDiff := func(now func() time.Time) (Backend, error) { return DiffBackend(mem.New(now)), nil }
	for seed := uint64(1); seed <= 8; seed++ {
		sameTrace(t, seed, viaDiff)
	}
}

// sameTrace runs seed on the in-memory store through its commit hook and
// on other, fails t unless both traces are identical, and returns the two
// results.
func sameTrace(t *testing.T, seed uint64, other NewBackend) (hooked, got Result) {
	t.Helper()
	sc := Draw(seed, FaultOverrides{})
	var a, b bytes.Buffer
	hooked = Run(sc, Options{Trace: &a})
	got = Run(sc, Options{Trace: &b, Backend: other})
	if hooked.Err != nil || got.Err != nil {
		t.Fatalf("seed %d: %v / %v", seed, hooked.Err, got.Err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("seed %d: traces differ; first difference (hook, other):\n%s", seed, FirstDifference(a.String(), b.String()))
	}
	return hooked, got
}
