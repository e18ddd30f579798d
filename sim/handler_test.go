package sim

import (
	"strings"
	"testing"
)

// TestAttemptsEndThroughTheWorker checks that a modelled handler's return
// reaches the core as the worker's own result: the reasons are the ones
// worker.Run records for a handler cut short by its timeout and by the
// drain deadline, not texts the simulator made up.
func TestAttemptsEndThroughTheWorker(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		want string
	}{
		{1, "returns retry timed out after 1.903s: context deadline exceeded"},
		{10, "returns retry worker shut down: handler cut short at the end of the drain: context canceled"},
	} {
		var trace strings.Builder
		r := Run(Draw(c.seed, FaultOverrides{}), Options{Trace: &trace})
		if r.Err != nil || r.Violation != nil {
			t.Fatalf("seed %d: %v %s", c.seed, r.Err, r.Report)
		}
		if !strings.Contains(trace.String(), c.want) {
			t.Errorf("seed %d: no handler %q in the trace", c.seed, c.want)
		}
	}
}
