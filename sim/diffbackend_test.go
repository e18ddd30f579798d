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
		sc := Draw(seed, FaultOverrides{})
		var hooked, diffed bytes.Buffer
		a := Run(sc, Options{Trace: &hooked})
		b := Run(sc, Options{Trace: &diffed, Backend: viaDiff})
		if a.Err != nil || b.Err != nil {
			t.Fatalf("seed %d: %v / %v", seed, a.Err, b.Err)
		}
		if !bytes.Equal(hooked.Bytes(), diffed.Bytes()) {
			t.Fatalf("seed %d: traces differ; first difference (hook, diff):\n%s", seed, FirstDifference(hooked.String(), diffed.String()))
		}
	}
}
