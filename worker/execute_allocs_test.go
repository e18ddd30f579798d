package worker

import (
	"context"
	"testing"
)

// TestExecuteAllocations holds a no-op job's attempt, with its telemetry
// on OpenTelemetry's global providers and none registered, to three
// allocations: the attempt's context with its output slot, the handler's
// decoded job and the result's. Each of the metric calls once allocated
// its options, the output slot and its context were two, and the span
// that records nothing three more (startSpan): with 100 jobs in flight a
// job's allocations are a share of the pass worth measuring.
func TestExecuteAllocations(t *testing.T) {
	w := newInlineWorker(t)
	if err := Handle(w, "q", func(context.Context, Job[struct{}]) error { return nil }); err != nil {
		t.Fatal(err)
	}
	row, ctx := rowFor("q", `{}`), context.Background()
	if got := testing.AllocsPerRun(100, func() { w.executeInline(ctx, row) }); got > 3 {
		t.Errorf("a no-op attempt allocated %.0f times, want at most 3", got)
	}
}
