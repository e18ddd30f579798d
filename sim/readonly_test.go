package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// demotedMem is the in-memory store behind a pool of one connection that
// DemoteConn leaves on a read-only node: every transaction on it fails
// unavailable, and the store drops it after the first unless keep (the
// planted bug pg-readonly-kept, in store/pg).
type demotedMem struct {
	*memBackend
	keep    bool
	demoted bool
}

func (b *demotedMem) DemoteConn(context.Context) error {
	b.demoted = true
	return nil
}

func (b *demotedMem) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if !b.demoted {
		return b.memBackend.InTx(ctx, fn)
	}
	b.demoted = b.keep
	return fmt.Errorf("write refused: the node is read-only: %w", store.ErrUnavailable)
}

// readOnlySeeds are the first seeds that draw the read-only fault during
// chaos when it is forced on.
func readOnlySeeds(t *testing.T, n int) []Scenario {
	t.Helper()
	ov, err := ParseFaultOverrides("+read-only")
	if err != nil {
		t.Fatal(err)
	}
	var out []Scenario
	for seed := uint64(1); len(out) < n && seed < 50; seed++ {
		sc := Draw(seed, ov)
		if r := Run(sc, Options{}); r.Faults[ReadOnly] > 0 {
			out = append(out, sc)
		}
	}
	if len(out) < n {
		t.Fatalf("%d of the first 50 seeds drew the read-only fault, want %d", len(out), n)
	}
	return out
}

// TestReadOnlyConnectionDropped: on a store that drops the read-only
// connection, the run gives the in-memory trace and reaches the mark.
func TestReadOnlyConnectionDropped(t *testing.T) {
	for _, sc := range readOnlySeeds(t, 3) {
		dropping := func(now func() time.Time) (Backend, error) {
			return &demotedMem{memBackend: newMemBackend(now)}, nil
		}
		r, diff := RunCompared(sc, dropping)
		if r.Failed() || diff != "" {
			t.Fatalf("seed %d: failed %v (%v %s), traces differ at %q", sc.Seed, r.Failed(), r.Err, r.Report, diff)
		}
		if !r.Marks.Has(MarkReadOnlyDropped) {
			t.Errorf("seed %d: %d read-only faults, mark %q not reached", sc.Seed, r.Faults[ReadOnly], MarkReadOnlyDropped)
		}
	}
}

// TestReadOnlyConnectionKeptFails: a store that keeps the read-only
// connection in its pool fails the run at the first read-only fault.
func TestReadOnlyConnectionKeptFails(t *testing.T) {
	for _, sc := range readOnlySeeds(t, 3) {
		keeping := func(now func() time.Time) (Backend, error) {
			return &demotedMem{memBackend: newMemBackend(now), keep: true}, nil
		}
		r := Run(sc, Options{Backend: keeping})
		if r.Err == nil || !strings.Contains(r.Err.Error(), "kept the read-only connection") {
			t.Errorf("seed %d: run error %v, want the kept read-only connection", sc.Seed, r.Err)
		}
	}
}

// TestReadOnlyDrawnOnlyWithAPool: seeds on a store without a pool never
// draw the read-only fault on, so their traces stay as they were; with a
// pool, some do.
func TestReadOnlyDrawnOnlyWithAPool(t *testing.T) {
	pooled := 0
	for seed := uint64(1); seed <= 100; seed++ {
		if sc := Draw(seed, FaultOverrides{}); sc.On(ReadOnly) {
			t.Fatalf("seed %d drew read-only on without a pool", seed)
		}
		if sc := Draw(seed, FaultOverrides{}.Pooled()); sc.On(ReadOnly) {
			pooled++
		}
	}
	if pooled < 20 || pooled > 60 {
		t.Errorf("%d of 100 seeds with a pool drew read-only on, want about 40", pooled)
	}
}
