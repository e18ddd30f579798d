package worker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A job that waits for others: the invoice is sent only once both the
// order is paid and the stock reserved. Until then it is waiting; when
// the last parent completes it becomes available in the same
// transaction.
func ExampleAfter() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	paid, _ := worker.Enqueue(ctx, client, Welcome{User: "pay"}, worker.WithQueue("orders"))
	stocked, _ := worker.Enqueue(ctx, client, Welcome{User: "stock"}, worker.WithQueue("orders"))
	invoice, _ := worker.Enqueue(ctx, client, Welcome{User: "invoice"}, worker.WithQueue("invoices"), worker.After(paid, stocked))
	show := func(when string) {
		_ = st.InTx(ctx, func(tx store.Tx) error {
			j, err := tx.GetJob(ctx, invoice)
			fmt.Println(when+":", j.Status, len(j.Parents), "parents left")
			return err
		})
	}
	show("enqueued")
	var w ulid.ULID
	_ = st.InTx(ctx, func(tx store.Tx) error { // a worker runs both parents
		w = mustWorker(ctx, tx)
		_, err := tx.Reserve(ctx, w, []string{"orders", "invoices"}, 10)
		return err
	})
	complete := func(id ulid.ULID) {
		_ = st.InTx(ctx, func(tx store.Tx) error {
			_, err := tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{id}})
			return err
		})
	}
	complete(paid)
	show("paid")
	complete(stocked)
	show("stocked")
	unknown := ulid.ULID{15: 9}
	_, err := worker.Enqueue(ctx, client, Welcome{}, worker.WithQueue("invoices"), worker.After(unknown))
	fmt.Println(errors.Is(err, store.ErrInvalid), strings.Contains(err.Error(), "parent "+unknown.String()+" does not exist"))
	// Output:
	// enqueued: waiting 2 parents left
	// paid: waiting 1 parents left
	// stocked: available 0 parents left
	// true true
}

// AfterInBatch chains the payloads of one EnqueueMany: each step waits
// for the one before, and a cancelled step cancels the rest of the chain,
// each with a reason naming its parent.
func ExampleAfterInBatch() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	steps := []Welcome{{User: "extract"}, {User: "transform"}, {User: "load"}}
	ids, _ := worker.EnqueueMany(ctx, client, steps, worker.WithQueue("etl"), worker.AfterInBatch(func(i int) []int {
		if i == 0 {
			return nil
		}
		return []int{i - 1}
	}))
	_, _ = client.Cancel(ctx, ids[0])
	_ = st.InTx(ctx, func(tx store.Tx) error {
		for i, id := range ids {
			j, _ := tx.GetJob(ctx, id)
			fmt.Println(steps[i].User, j.Status, j.FailedReason == "parent "+ids[max(i-1, 0)].String()+" cancelled")
		}
		return nil
	})
	// Output:
	// extract cancelled false
	// transform cancelled true
	// load cancelled true
}
