package tickworktest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// Welcome is the application's payload; its Queue method routes it.
type Welcome struct {
	User string `json:"user"`
	Plan string `json:"plan,omitempty"`
}

func (Welcome) Queue() string { return "welcome" }

// exampleT stands in for a test's *testing.T, which examples do not have:
// a failure panics.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                           {}
func (exampleT) Context() context.Context          { return context.Background() }
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// signup is the code under test: it enqueues a welcome job.
func signup(ctx context.Context, client *worker.Client, user string) error {
	_, err := worker.Enqueue(ctx, client, Welcome{User: user, Plan: "free"})
	return err
}

// register is the application's handler registration, as its main calls it.
func register(w *worker.Worker, send func(user string) error) error {
	return worker.Handle(w, "welcome", func(ctx context.Context, job worker.Job[Welcome]) error {
		return send(job.Payload.User)
	}, worker.WithTimeout(10*time.Second))
}

// The test checks that signup enqueued the welcome job, then runs its
// handler. The handler fails once; Drain moves the virtual clock to the
// retry's backoff time and runs it, with no database and no sleep.
func Example() {
	t := exampleT{} // in a real test, the *testing.T of the test function
	kit := tickworktest.New(t, tickworktest.Options{})
	if err := signup(context.Background(), kit.Client(), "ada"); err != nil {
		panic(err)
	}
	tickworktest.RequireEnqueued(t, kit.Store(), tickworktest.Want{Queue: "welcome", Payload: Welcome{User: "ada"}})

	sent := 0
	_ = register(kit.Worker(), func(user string) error {
		if sent++; sent == 1 {
			return errors.New("smtp: connection refused")
		}
		fmt.Printf("mail sent to %s at %s\n", user, kit.Now().Format(time.TimeOnly))
		return nil
	})
	first := kit.WorkOne()
	fmt.Printf("attempt %d: %s (%s), retry at %s\n", first.Job.Attempt, first.Decision, first.Reason, first.Retry.ScheduledAt.Format(time.TimeOnly))
	for _, a := range kit.Drain() {
		fmt.Printf("attempt %d: %s\n", a.Job.Attempt, a.Decision)
	}
	tickworktest.RequireNotEnqueued(t, kit.Store(), tickworktest.Want{Queue: "welcome"})
	// Output:
	// attempt 0: retry (smtp: connection refused), retry at 00:00:05
	// mail sent to ada at 00:00:05
	// attempt 1: succeed
}

// A handler that overruns its timeout: the fake of the slow dependency
// moves the kit's clock, the handler's context ends with DeadlineExceeded,
// and the attempt is retried like a worker would.
func ExampleKit_Advance() {
	t := exampleT{}
	kit := tickworktest.New(t, tickworktest.Options{})
	_ = register(kit.Worker(), func(user string) error {
		kit.Advance(time.Minute) // the mail server answers after a minute
		return nil
	})
	_ = worker.Handle(kit.Worker(), "report", func(ctx context.Context, job worker.Job[struct{}]) error {
		kit.Advance(time.Minute)
		return ctx.Err()
	}, worker.WithTimeout(30*time.Second))
	_, _ = worker.Enqueue(context.Background(), kit.Client(), struct{}{}, worker.WithQueue("report"))

	a := kit.WorkOne()
	fmt.Println(a.Decision, "-", a.Reason)
	// Output: retry - timed out after 30s: context deadline exceeded
}

// RequireEnqueuedTx checks inside the caller's transaction, before it
// commits: the job exists only if the transaction does.
func ExampleRequireEnqueuedTx() {
	t := exampleT{}
	kit := tickworktest.New(t, tickworktest.Options{})
	ctx := context.Background()
	_ = kit.Store().InTx(ctx, func(tx store.Tx) error {
		// ... the order's own rows ...
		_, err := worker.EnqueueTx(ctx, kit.Client(), tx, Welcome{User: "grace"})
		job := tickworktest.RequireEnqueuedTx(t, tx, tickworktest.Want{Payload: map[string]any{"user": "grace"}})
		fmt.Println(job.Queue, job.Status, job.ScheduledAt.Equal(kit.Now()))
		return err
	})
	// Output: welcome available true
}
