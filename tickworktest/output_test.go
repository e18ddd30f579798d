package tickworktest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// A handler's recorded output is kept with the completed row and shown in
// the Attempt; a failed attempt's output is dropped, and an output that is
// no valid payload is refused where it is recorded.
func TestRecordedOutput(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error {
		if err := worker.RecordOutput(ctx, map[string]int{"sent": job.Payload.N}); err != nil {
			return err
		}
		if err := worker.RecordOutput(ctx, strings.Repeat("x", 1<<20)); err == nil {
			return errors.New("an output over 1 MiB was accepted")
		}
		if job.Payload.N == 1 {
			return worker.FailJob(errors.New("no"))
		}
		return nil
	})
	enqueue(t, kit, "q", step{N: 2})
	enqueue(t, kit, "q", step{N: 1})
	got := map[worker.Decision]string{}
	for _, a := range kit.Drain() {
		if string(a.Output) != string(a.Job.Output) {
			t.Errorf("Attempt.Output %q, row output %q", a.Output, a.Job.Output)
		}
		got[a.Decision] = string(a.Output)
	}
	if len(got) != 2 || got[worker.Succeed] != `{"sent":2}` || got[worker.Fail] != "" {
		t.Errorf("outputs by decision %q, want {\"sent\":2} for the success and none for the failure", got)
	}
	if err := worker.RecordOutput(context.Background(), 1); err == nil {
		t.Error("RecordOutput outside a handler was accepted")
	}
}
