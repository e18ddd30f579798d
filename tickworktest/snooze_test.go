package tickworktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// WorkOne records a snooze as a worker does and returns the row that runs
// the job again; Drain moves the clock to its time, and the handler's own
// bound decides the retries after it.
func TestSnoozeAndHandlerBound(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	runs := 0
	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error {
		if runs++; runs == 1 {
			return worker.Snooze(time.Minute)
		}
		return worker.RetryJob(context.DeadlineExceeded)
	}, worker.WithQueueMaxAttempts(2))
	enqueue(t, kit, "q", step{N: 1})
	start := kit.Now()
	first := kit.WorkOne()
	if first.Decision != worker.Snoozed || first.Job.Status != store.Snoozed || first.Snooze == nil || first.Retry != nil {
		t.Fatalf("first run: %+v", first)
	}
	if s := first.Snooze; s.Attempt != 0 || s.Snoozes != 1 || !s.ScheduledAt.Equal(first.Job.CompletedAt.Add(time.Minute)) {
		t.Fatalf("the snooze's row: %s", store.FormatJob(*s))
	}
	rest := kit.Drain()
	if len(rest) != 2 || rest[0].Job.Attempt != 0 || rest[1].Job.Attempt != 1 || rest[1].Retry != nil {
		t.Fatalf("after the snooze: %d runs, want attempt 0 again then attempt 1, the handler's last", len(rest))
	}
	if at := rest[0].Job.StartedAt; at.Before(start.Add(time.Minute)) {
		t.Fatalf("the snoozed job ran again at %v, before its snooze ended at %v", at, start.Add(time.Minute))
	}
}
