package worker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

func nop(context.Context, worker.Job[struct{}]) error { return nil }

func TestPolicyOptionsRefuseBadValues(t *testing.T) {
	for name, opt := range map[string]worker.HandlerOption{
		"WithQueueMaxAttempts(0)":        worker.WithQueueMaxAttempts(0),
		"WithQueueMaxAttempts(too many)": worker.WithQueueMaxAttempts(store.MaxJobAttempts + 1),
		"WithRetryDelay(nil)":            worker.WithRetryDelay(nil),
		"WithRetryBackoff(base 0)":       worker.WithRetryBackoff(clockrng.Backoff{Factor: 2}),
	} {
		kit := tickworktest.New(t, tickworktest.Options{})
		if err := worker.Handle(kit.Worker(), "q", nop, opt); err == nil || !strings.Contains(err.Error(), `queue "q"`) {
			t.Errorf("%s: Handle returned %v, want an error naming the queue", name, err)
		}
	}
	kit := tickworktest.New(t, tickworktest.Options{})
	for _, n := range []int{0, -1, store.MaxJobAttempts + 1} {
		_, err := worker.Enqueue(t.Context(), kit.Client(), struct{}{}, worker.WithQueue("q"), worker.WithMaxAttempts(n))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("WithMaxAttempts(%d)", n)) {
			t.Errorf("WithMaxAttempts(%d): %v, want an error naming it", n, err)
		}
	}
	tickworktest.RequireNotEnqueued(t, kit.Store(), tickworktest.Want{Queue: "q"})
}

func TestDecisionOfSnooze(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", worker.Snooze(time.Minute))
	if d := worker.DecisionOf(err); d != worker.Snoozed {
		t.Fatalf("DecisionOf(a wrapped Snooze) = %v", d)
	}
	if d, ok := worker.SnoozeOf(err); !ok || d != time.Minute {
		t.Fatalf("SnoozeOf = %v, %v", d, ok)
	}
	if d, _ := worker.SnoozeOf(worker.Snooze(-time.Second)); d != 0 {
		t.Fatalf("a negative snooze waits %v, want 0", d)
	}
	if worker.DecisionOf(worker.FailJob(worker.Snooze(time.Second))) != worker.Fail {
		t.Fatal("FailJob around a Snooze does not fail")
	}
}

// WithRetryBackoff's delays, with jitter drawn from the worker's source, fall
// within the backoff's bounds; a timed-out snooze still snoozes.
func TestRetryBackoffAndSnoozeThroughTheWorker(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	b := clockrng.Backoff{Base: time.Second, Factor: 3, Jitter: 0.5}
	var calls int
	err := worker.Handle(kit.Worker(), "q", func(ctx context.Context, job worker.Job[struct{}]) error {
		if calls++; calls == 2 {
			kit.Advance(time.Hour) // past the timeout, then snooze: the snooze stands
			return worker.Snooze(time.Minute)
		}
		return errors.New("again")
	}, worker.WithQueueMaxAttempts(4), worker.WithRetryBackoff(b), worker.WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Enqueue(t.Context(), kit.Client(), struct{}{}, worker.WithQueue("q")); err != nil {
		t.Fatal(err)
	}
	attempts := kit.Drain()
	if len(attempts) != 5 {
		t.Fatalf("%d runs, want 4 attempts and a snooze", len(attempts))
	}
	for _, a := range attempts {
		switch {
		case a.Retry != nil:
			lo, hi := b.Bounds(a.Job.Attempt)
			if d := a.Retry.ScheduledAt.Sub(a.Job.FailedAt); d < lo.Truncate(time.Microsecond) || d > hi {
				t.Errorf("attempt %d retried after %v, outside [%v, %v]", a.Job.Attempt, d, lo, hi)
			}
		case a.Snooze != nil:
			if a.Decision != worker.Snoozed || a.Snooze.Attempt != a.Job.Attempt || a.Snooze.ScheduledAt.Sub(a.Job.CompletedAt) != time.Minute {
				t.Errorf("snooze %+v of %s", a.Snooze, store.FormatJob(a.Job))
			}
		}
	}
	if last := attempts[4].Job; last.Attempt != 3 || last.Status != store.Failed || !last.NextAttemptID.IsZero() {
		t.Fatalf("the last run %s, want attempt 3 (the handler's fourth) failed for good", store.FormatJob(last))
	}
}
