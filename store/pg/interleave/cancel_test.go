package interleave_test

import (
	"context"
	"errors"
	"testing"
	"time"
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
