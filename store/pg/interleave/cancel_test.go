package interleave_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestCancelledContextLeavesTheGate: a caller whose context is cancelled
// while its round trip is parked gets the context's error instead of
// waiting for the controller, and the store goes on with a new connection.
func TestCancelledContextLeavesTheGate(t *testing.T) {
	w := newWorld(t)
	r := w.run(1, "a")
	pool := r.stores["a"].Pool()
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	r.ctl.Go("a", func() { _, err = pool.Exec(ctx, "SELECT 1") })
	pending, serr := r.ctl.Settle(context.Background())
	if serr != nil || len(pending) != 1 || pending[0].Statements[0] != "SELECT 1" {
		t.Fatalf("pending %v (%v), want a's SELECT 1", pending, serr)
	}
	cancel()
	waitUnparked(t, r, "a#0")
	runCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := r.ctl.Run(runCtx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a got %v, want context.Canceled\n%s", err, trace(r.ctl.Events()))
	}
	var one int
	if err := pool.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the store after the cancel: %d, %v", one, err)
	}
}

// waitUnparked waits until conn's round trip has left the gate. pgx
// abandons a write whose context was cancelled from a goroutine of its own
// (it sets a deadline on the connection), so for a moment after cancel the
// round trip is still parked: a Run that released it then would send it
// (and the caller get its answer) or find it gone.
func waitUnparked(t *testing.T, r *run, conn string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pending, err := r.ctl.Settle(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(pending, func(p interleave.Pending) bool { return p.Conn == conn }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still parked 10 s after its context was cancelled", conn)
		}
		time.Sleep(time.Millisecond)
	}
}
