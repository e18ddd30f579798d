package tickworktest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// A handler registered with worker.DeadLetter: its worker writes the
// dead-letter queue on the queue's row, a job retried with attempts left
// stays in its queue, and one that fails for good moves to the
// dead-letter queue; Redrive sends it back as its next attempt, which
// the handler then completes.
func TestDeadLetterAndRedrive(t *testing.T) {
	kit := tickworktest.New(t, tickworktest.Options{})
	broken := true
	handle(t, kit, "mail", func(_ context.Context, job worker.Job[step]) error {
		switch {
		case !broken:
			return nil
		case job.Attempt == 0:
			return worker.RetryJob(errors.New("try again"))
		}
		return worker.FailJob(errors.New("bounced"))
	}, worker.DeadLetter("mail.dead"))
	enqueue(t, kit, "mail", step{})
	got := kit.Drain()
	if len(got) != 2 || got[0].Retry == nil || got[0].Job.Queue != "mail" || got[0].Job.DeadFrom != "" {
		t.Fatalf("first attempt: %+v", got)
	}
	dead := got[1].Job
	if dead.Status != store.Failed || dead.Queue != "mail.dead" || dead.DeadFrom != "mail" || dead.Attempt != 1 {
		t.Fatalf("the attempt that failed for good: %s", store.FormatJob(dead))
	}
	queues, err := kit.Client().ListQueues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(queues) == 0 || queues[0].Name != "mail" || queues[0].DeadLetter != "mail.dead" {
		t.Fatalf("queues after the worker registered: %+v", queues)
	}
	broken = false
	next, err := kit.Client().Redrive(context.Background(), "mail.dead")
	if err != nil || len(next) != 1 {
		t.Fatalf("Redrive = %v, %v", next, err)
	}
	got = kit.Drain()
	if len(got) != 1 || got[0].Job.ID != next[0] || got[0].Job.Status != store.Completed || got[0].Job.Queue != "mail" || got[0].Job.Attempt != 2 {
		t.Fatalf("the redriven attempt: %+v", got)
	}
	if _, err := kit.Client().Redrive(context.Background(), ""); err == nil {
		t.Error("Redrive of a queue without a name was accepted")
	}
	if err := worker.Handle(kit.Worker(), "other", func(context.Context, worker.Job[step]) error { return nil }, worker.DeadLetter("other")); err == nil {
		t.Error("a handler dead-lettering to its own queue was accepted")
	}
}
