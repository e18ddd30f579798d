package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// A store or worker invariant that panics mid-run ends the run as a
// failure naming it, with the trace up to the panic, instead of crashing
// the simulator.
func TestPanicIsAFailure(t *testing.T) {
	breaking := func(now func() time.Time) (Backend, error) {
		be, err := MemBackend(now)
		return &panicking{Backend: be, after: 50}, err
	}
	r := Run(Draw(1, FaultOverrides{}), Options{Backend: breaking})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "planted invariant") {
		t.Fatalf("run error %v, want the planted panic", r.Err)
	}
	if len(r.Tail) == 0 || !strings.Contains(r.Tail[len(r.Tail)-1], "PANIC") {
		t.Fatalf("trace tail %q does not end at the panic", r.Tail)
	}
}

// panicking is a backend whose transaction number after panics, as a
// broken store invariant does at its commit.
type panicking struct {
	Backend
	after, n int
}

func (b *panicking) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if b.n++; b.n == b.after {
		panic("planted invariant")
	}
	return b.Backend.InTx(ctx, fn)
}
