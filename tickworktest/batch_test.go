package tickworktest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// A batch's callback runs once, after every member ended, and its
// handler reads the outcome in Job.Batch: a member retried before it
// completed counts once, one that failed for good is named. Drain runs
// the leader's settling pass that releases the callback.
func TestBatchCallbackSeesTheOutcome(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	retried := false
	handle(t, kit, "m", func(_ context.Context, job worker.Job[step]) error {
		switch {
		case job.Payload.N == 1 && !retried:
			retried = true
			return worker.RetryJob(errors.New("once"))
		case job.Payload.N == 2:
			return worker.FailJob(errors.New("for good"))
		}
		return nil
	})
	var seen []store.Batch
	handle(t, kit, "cb", func(_ context.Context, job worker.Job[step]) error {
		if job.Batch == nil {
			t.Fatal("the callback's handler has no batch")
		}
		seen = append(seen, *job.Batch)
		return nil
	})
	var other *store.Batch
	handle(t, kit, "plain", func(_ context.Context, job worker.Job[step]) error { other = job.Batch; return nil })
	enqueue(t, kit, "plain", step{})
	cb, ids, err := worker.EnqueueBatch(context.Background(), kit.Client(), []step{{N: 0}, {N: 1}, {N: 2}}, step{N: 9}, worker.WithQueue("m"),
		worker.CallbackOptions(worker.WithQueue("cb")))
	if err != nil {
		t.Fatal(err)
	}
	_ = kit.Drain()
	if len(seen) != 1 {
		t.Fatalf("the callback ran %d times, want once", len(seen))
	}
	want := store.Batch{ID: cb, Members: 3, Completed: 2, Failed: 1, FailedIDs: []ulid.ULID{ids[2]}}
	if b := seen[0]; b.String() != want.String() {
		t.Fatalf("the callback saw %v, want %v", b, want)
	}
	if other != nil {
		t.Fatalf("a job in no batch saw batch %v", *other)
	}
}

// A batch needs members.
func TestEnqueueBatchRefusesNoMembers(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	_, _, err := worker.EnqueueBatch(context.Background(), kit.Client(), []step{}, step{}, worker.WithQueue("m"))
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a batch without members: %v, want ErrInvalid", err)
	}
}
