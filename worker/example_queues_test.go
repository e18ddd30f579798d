package worker_test

import (
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// WithPriority makes a job wait behind jobs of smaller priority numbers:
// 0, the default, is reserved first.
func ExampleWithPriority() {
	ctx := context.Background()
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	_, _ = worker.Enqueue(ctx, client, Welcome{User: "batch"}, worker.WithPriority(5))
	_, _ = worker.Enqueue(ctx, client, Welcome{User: "urgent"})
	_ = st.InTx(ctx, func(tx store.Tx) error {
		id := mustWorker(ctx, tx) // any live worker reserves the same way
		jobs, err := tx.Reserve(ctx, id, []string{"welcome"}, 1)
		if err == nil {
			fmt.Println(string(jobs[0].Payload), jobs[0].Priority)
		}
		return err
	})
	_, err := worker.Enqueue(ctx, client, Welcome{User: "x"}, worker.WithPriority(store.MaxPriority+1))
	fmt.Println(err != nil)
	// Output:
	// {"user":"urgent"} 0
	// true
}

// A paused queue keeps taking jobs but no worker starts any until it is
// resumed; a limit bounds how many of its jobs run at once across every
// worker. ListQueues shows both, with counts by status.
func ExampleClient_PauseQueue() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	_ = client.PauseQueue(ctx, "welcome")
	_ = client.SetQueueLimit(ctx, "welcome", 3)
	_, _ = worker.Enqueue(ctx, client, Welcome{User: "linus"})
	queues, _ := client.ListQueues(ctx)
	for _, q := range queues {
		fmt.Println(q.Name, "paused since", q.PausedAt.Format(time.RFC3339), "limit", q.Limit, "available", q.Counts[store.Available])
	}
	_ = client.ResumeQueue(ctx, "welcome")
	queues, _ = client.ListQueues(ctx)
	fmt.Println(queues[0].PausedAt.IsZero(), queues[0].Limit)
	// Output:
	// welcome paused since 2030-01-01T00:00:00Z limit 3 available 1
	// true 3
}

// PauseAll stops every worker from starting jobs of any queue, queues that
// get their first job later too, until ResumeAll; enqueues go on. It is
// kept apart from each queue's own pause.
func ExampleClient_PauseAll() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	_ = client.PauseQueue(ctx, "audit")
	_ = client.PauseAll(ctx)
	_, _ = worker.Enqueue(ctx, client, Welcome{User: "linus"}) // a queue with no job before the pause
	at, _ := client.PausedAll(ctx)
	fmt.Println("all paused since", at.Format(time.RFC3339))
	_ = st.InTx(ctx, func(tx store.Tx) error {
		jobs, err := tx.Reserve(ctx, mustWorker(ctx, tx), []string{"welcome"}, 10)
		fmt.Println("reserved while paused:", len(jobs))
		return err
	})
	_ = client.ResumeAll(ctx)
	at, _ = client.PausedAll(ctx)
	queues, _ := client.ListQueues(ctx)
	fmt.Println(at.IsZero(), queues[0].Name, "still paused:", !queues[0].PausedAt.IsZero())
	// Output:
	// all paused since 2030-01-01T00:00:00Z
	// reserved while paused: 0
	// true audit still paused: true
}

// A rate bounds how many of a queue's jobs start in any window of its
// period, across every worker: here 2 a minute, so the third waits.
func ExampleClient_SetQueueRate() {
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	st := mem.New(func() time.Time { return now })
	client := worker.NewClient(st, nil)
	_ = client.SetQueueRate(ctx, "welcome", 2, time.Minute)
	for _, user := range []string{"ada", "grace", "linus"} {
		_, _ = worker.Enqueue(ctx, client, Welcome{User: user})
	}
	reserve := func() int {
		var n int
		_ = st.InTx(ctx, func(tx store.Tx) error {
			jobs, err := tx.Reserve(ctx, mustWorker(ctx, tx), []string{"welcome"}, 10)
			n = len(jobs)
			return err
		})
		return n
	}
	fmt.Println("started", reserve())
	fmt.Println("started", reserve())
	now = now.Add(time.Minute)
	fmt.Println("a minute later, started", reserve())
	queues, _ := client.ListQueues(ctx)
	fmt.Println(queues[0].Name, "rate", queues[0].Rate, "per", queues[0].RatePeriod)
	fmt.Println(client.SetQueueRate(ctx, "welcome", 1, 0) != nil) // a rate needs a period
	// Output:
	// started 2
	// started 0
	// a minute later, started 1
	// welcome rate 2 per 1m0s
	// true
}

// mustWorker registers a worker row for the examples that reserve by hand.
func mustWorker(ctx context.Context, tx store.Tx) ulid.ULID {
	id := ulid.ULID{15: 1}
	_ = tx.RegisterWorker(ctx, id)
	return id
}
