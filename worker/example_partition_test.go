package worker_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A per-key limit bounds how many jobs of one partition key run at once:
// here one per tenant. Tenant t1's backlog waits behind its running job
// while t2's job, enqueued after all of it, starts at once.
func ExamplePartitionKey() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	_ = client.SetQueueKeyLimit(ctx, "welcome", 1)
	backlog := []Welcome{{User: "ada"}, {User: "grace"}, {User: "linus"}}
	_, _ = worker.EnqueueMany(ctx, client, backlog, worker.PartitionKey("t1")) // reserved in this order
	_, _ = worker.Enqueue(ctx, client, Welcome{User: "ken"}, worker.PartitionKey("t2"))
	_ = st.InTx(ctx, func(tx store.Tx) error {
		jobs, err := tx.Reserve(ctx, mustWorker(ctx, tx), []string{"welcome"}, 10)
		slices.SortFunc(jobs, func(a, b store.Job) int { return strings.Compare(a.PartitionKey, b.PartitionKey) })
		for _, j := range jobs {
			fmt.Println(j.PartitionKey, string(j.Payload))
		}
		return err
	})
	queues, _ := client.ListQueues(ctx)
	fmt.Println(queues[0].Name, "per-key limit", queues[0].KeyLimit, "available", queues[0].Counts[store.Available])
	// Output:
	// t1 {"user":"ada"}
	// t2 {"user":"ken"}
	// welcome per-key limit 1 available 2
}

// PartitionKeyFrom derives the key from fields of the payload.
func ExamplePartitionKeyFrom() {
	ctx := context.Background()
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	type Invoice struct {
		Tenant string `json:"tenant"`
		Region string `json:"region"`
		Amount int    `json:"amount"`
	}
	id, _ := worker.Enqueue(ctx, client, Invoice{Tenant: "t42", Region: "eu", Amount: 7},
		worker.WithQueue("invoices"), worker.PartitionKeyFrom("tenant", "region"))
	_ = st.InTx(ctx, func(tx store.Tx) error {
		j, err := tx.GetJob(ctx, id)
		fmt.Println(j.PartitionKey)
		return err
	})
	_, err := worker.Enqueue(ctx, client, Invoice{}, worker.WithQueue("invoices"), worker.PartitionKeyFrom("customer"))
	fmt.Println(err != nil)
	// Output:
	// t42/eu
	// true
}
