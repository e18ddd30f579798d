package sim

import (
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// passingMem is the in-memory store with a job pass of its own, which
// means what store.RunJobPass does with InTx: a store.JobPasser that needs
// no PostgreSQL.
type passingMem struct{ *mem.Store }

func (m passingMem) RunJobPass(ctx context.Context, p store.JobPass) (store.JobPassResult, error) {
	return store.RunJobPass(ctx, struct{ store.Store }{m.Store}, p)
}

// TestOwnJobPassKeepsTheTrace: a worker's job pass sent as the store's own
// gives the trace it gives through InTx, faults included (they are drawn
// alike on both paths), reaches the same marks, the ambiguous commits'
// included, and MarkPipelinedPass too, which a run on a store without one
// never does.
func TestOwnJobPassKeepsTheTrace(t *testing.T) {
	viaPass := func(now func() time.Time) (Backend, error) { return DiffBackend(passingMem{mem.New(now)}), nil }
	for seed := uint64(1); seed <= 12; seed++ {
		a, b := sameTrace(t, seed, viaPass)
		want := a.Marks
		want.set(MarkPipelinedPass)
		if a.Marks.Has(MarkPipelinedPass) || b.Marks != want {
			t.Fatalf("seed %d: marks through the store's own pass %b, want those through InTx (%b) and %q", seed, b.Marks, a.Marks, MarkPipelinedPass)
		}
	}
}
