package tickworktest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

type step struct {
	N int `json:"n"`
}

func handle(t *testing.T, kit *tickworktest.Kit, queue string, fn func(ctx context.Context, job worker.Job[step]) error, opts ...worker.HandlerOption) {
	t.Helper()
	if err := worker.Handle(kit.Worker(), queue, fn, opts...); err != nil {
		t.Fatal(err)
	}
}

// TestWorkOneDecisions: each outcome of a handler maps to the worker's
// decision and is recorded as the worker records it.
func TestWorkOneDecisions(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error {
		switch job.Payload.N {
		case 1:
			return errors.New("try later")
		case 2:
			return worker.FailJob(errors.New("bad order"))
		case 3:
			panic("nil map")
		case 4:
			kit.Advance(2 * time.Second) // overruns the timeout
			return ctx.Err()
		}
		return nil
	}, worker.WithTimeout(time.Second))
	for n := range 5 {
		enqueue(t, kit, "q", step{N: n})
	}
	enqueue(t, kit, "q", "not an object")
	start := kit.Now()

	type outcome struct {
		decision worker.Decision
		status   store.Status
		reason   string
		retry    bool
	}
	wants := map[string]outcome{
		`{"n":0}`:         {worker.Succeed, store.Completed, "", false},
		`{"n":1}`:         {worker.Retry, store.Failed, "try later", true},
		`{"n":2}`:         {worker.Fail, store.Failed, "bad order", false},
		`{"n":3}`:         {worker.Retry, store.Failed, "handler panicked: nil map", true},
		`{"n":4}`:         {worker.Retry, store.Failed, "timed out after 1s: context deadline exceeded", true},
		`"not an object"`: {worker.Fail, store.Failed, "payload did not decode as tickworktest_test.step", false},
	}
	for n := len(wants); n > 0; n-- {
		a := kit.WorkOne()
		want, ok := wants[string(a.Job.Payload)]
		if !ok || a.Job.Attempt != 0 {
			t.Fatalf("WorkOne ran %s attempt %d, which was not enqueued or ran before", a.Job.Payload, a.Job.Attempt)
		}
		delete(wants, string(a.Job.Payload))
		if a.Decision != want.decision || a.Job.Status != want.status || !strings.HasPrefix(a.Reason, want.reason) ||
			a.Job.FailedReason != a.Reason || (a.Retry != nil) != want.retry {
			t.Errorf("attempt %s: %v %s %q retry %v; want %v %s %q retry %v", a.Job.Payload, a.Decision, a.Job.Status, a.Reason, a.Retry != nil,
				want.decision, want.status, want.reason, want.retry)
		}
		if a.Retry != nil && (a.Retry.Attempt != 1 || a.Retry.Status != store.Scheduled || !a.Retry.ScheduledAt.Equal(a.Job.FailedAt.Add(5*time.Second))) {
			t.Errorf("retry of %s: %+v, want attempt 1 scheduled 5 s after the failure", a.Job.Payload, *a.Retry)
		}
	}
	if len(wants) != 0 {
		t.Errorf("jobs never run: %v", wants)
	}
	if got := kit.Now().Sub(start); got != 2*time.Second {
		t.Errorf("the clock moved %v, want only the 2 s the overrunning handler advanced it", got)
	}
}

func TestWorkOneRunsOldestDueFirstAndPromotesScheduledJobs(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	var ran []int
	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error {
		ran = append(ran, job.Payload.N)
		return nil
	})
	enqueue(t, kit, "q", step{N: 1}, worker.WithScheduledAt(kit.Now().Add(time.Minute)))
	enqueue(t, kit, "q", step{N: 2})
	kit.WorkOne()
	kit.Advance(time.Minute)
	kit.WorkOne()
	if len(ran) != 2 || ran[0] != 2 || ran[1] != 1 {
		t.Errorf("ran %v, want the available job 2, then job 1 once its time came", ran)
	}
}

func TestWorkOneFailsWhenNothingIsDue(t *testing.T) {
	f := &fakeTB{}
	kit := tickworktest.New(f, tickworktest.Options{})
	wantFailure(t, f, func() { kit.WorkOne() }, "WorkOne: no handler is registered", "worker.Handle")
	wantFailure(t, f, func() { kit.Drain() }, "Drain: no handler is registered")

	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error { return nil })
	enqueue(t, kit, "q", step{N: 1}, worker.WithScheduledAt(kit.Now().Add(time.Hour)))
	enqueue(t, kit, "elsewhere", step{N: 2})
	wantFailure(t, f, func() { kit.WorkOne() },
		`WorkOne: no job is due at 2030-01-01T00:00:00Z on the queues with handlers ["q"]; 2 jobs wait:`,
		`on queue "q", attempt 0, scheduled, scheduled at 2030-01-01T01:00:00Z`,
		`on queue "elsewhere", attempt 0, available, scheduled at 2030-01-01T00:00:00Z, payload {"n":2} (no handler for its queue)`)
}

// TestDrainRunsRetriesAtTheirBackoff: Drain moves the clock to each
// retry, the attempts stop at MaxRetries, jobs handlers enqueue run too,
// and a job on a queue without handler is left alone.
func TestDrainRunsRetriesAtTheirBackoff(t *testing.T) {
	cfg := worker.DefaultConfig()
	cfg.MaxRetries = 2
	kit := tickworktest.New(t, tickworktest.Options{Worker: worker.Options{Config: cfg}})
	start := kit.Now()
	var times []time.Duration
	handle(t, kit, "flaky", func(ctx context.Context, job worker.Job[step]) error {
		times = append(times, kit.Now().Sub(start))
		return errors.New("down")
	})
	handle(t, kit, "chain", func(ctx context.Context, job worker.Job[step]) error {
		if job.Payload.N < 3 {
			_, err := worker.Enqueue(ctx, kit.Client(), step{N: job.Payload.N + 1}, worker.WithQueue("chain"))
			return err
		}
		return nil
	})
	enqueue(t, kit, "flaky", step{})
	enqueue(t, kit, "chain", step{N: 1})
	enqueue(t, kit, "unhandled", step{})

	attempts := kit.Drain()
	var summary []string
	for _, a := range attempts {
		summary = append(summary, a.Job.Queue+" "+a.Decision.String())
	}
	if len(attempts) != 6 {
		t.Fatalf("Drain ran %q, want 3 flaky attempts and 3 chain jobs", summary)
	}
	if want := []time.Duration{0, 5 * time.Second, 15 * time.Second}; len(times) != 3 || times[0] != want[0] || times[1] != want[1] || times[2] != want[2] {
		t.Errorf("flaky ran at %v, want %v (5 s, then 10 s of backoff)", times, want)
	}
	if last := attempts[len(attempts)-1]; last.Job.Queue != "flaky" || last.Decision != worker.Retry || last.Retry != nil || last.Job.Attempt != 2 {
		t.Errorf("last attempt %+v, want flaky's attempt 2, a retry decision with no attempt left", last)
	}
	tickworktest.RequireEnqueued(t, kit.Store(), tickworktest.Want{Queue: "unhandled"})
	if more := kit.Drain(); len(more) != 0 {
		t.Errorf("a second Drain ran %d attempts, want none", len(more))
	}
}

func TestDrainIsBounded(t *testing.T) {
	f := &fakeTB{}
	kit := tickworktest.New(f, tickworktest.Options{MaxDrainAttempts: 5})
	handle(t, kit, "forever", func(ctx context.Context, job worker.Job[step]) error {
		_, err := worker.Enqueue(ctx, kit.Client(), step{N: job.Payload.N + 1}, worker.WithQueue("forever"), worker.WithScheduledAt(kit.Now().Add(time.Hour)))
		return err
	})
	enqueue(t, kit, "forever", step{})
	wantFailure(t, f, func() { kit.Drain() }, "Drain ran 5 attempts, its bound (Options.MaxDrainAttempts), and jobs still wait: 1 jobs wait:", `payload {"n":5}`)
}

func TestKitRunsMiddlewareAndRefusesBadConfig(t *testing.T) {
	var seen []string
	kit := tickworktest.New(t, tickworktest.Options{Worker: worker.Options{Middleware: []worker.Middleware{
		func(ctx context.Context, job worker.RawJob, next func(context.Context) error) error {
			seen = append(seen, job.Queue)
			return next(ctx)
		},
	}}})
	handle(t, kit, "q", func(ctx context.Context, job worker.Job[step]) error { return nil })
	enqueue(t, kit, "q", step{})
	kit.WorkOne()
	if len(seen) != 1 || seen[0] != "q" {
		t.Errorf("middleware saw %q, want the one job", seen)
	}

	f := &fakeTB{}
	cfg := worker.DefaultConfig()
	cfg.MaxConcurrent = -1
	wantFailure(t, f, func() { tickworktest.New(f, tickworktest.Options{Worker: worker.Options{Config: cfg}}) },
		"tickworktest: New: worker config: MaxConcurrent is -1")
	wantFailure(t, f, func() { kit := tickworktest.New(f, tickworktest.Options{}); kit.Advance(-time.Second) }, "the clock does not go back")
}
