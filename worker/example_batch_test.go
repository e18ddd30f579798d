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

// A batch: three welcome mails, then one report once all three ended,
// however they ended. The report waits; the leader's pass after the last
// member ended releases it, and its handler reads the outcome in
// Job.Batch (here read from the store, as the worker does for it).
func ExampleEnqueueBatch() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	report, mails, _ := worker.EnqueueBatch(ctx, client, []Welcome{{User: "ann"}, {User: "bob"}, {User: "cid"}},
		Welcome{User: "report"}, worker.CallbackOptions(worker.WithQueue("reports")))
	_ = st.InTx(ctx, func(tx store.Tx) error { // a worker sends the mails: one bounces for good
		w := mustWorker(ctx, tx)
		_, _ = tx.Reserve(ctx, w, []string{"welcome"}, 10)
		_, _ = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{mails[0], mails[2]}})
		return tx.FailJob(ctx, w, mails[1], "mailbox full")
	})
	leaderPass := func() {
		_ = st.InTx(ctx, func(tx store.Tx) error {
			_, err := tx.SettleWaitingJobs(ctx)
			j, _ := tx.GetJob(ctx, report)
			b, _ := tx.GetBatch(ctx, report)
			fmt.Printf("report %s: %d of %d ended, %d completed, %d failed, first failed is bob: %v\n",
				j.Status, b.Ended(), b.Members, b.Completed, b.Failed, b.FailedIDs[0] == mails[1])
			return err
		})
	}
	leaderPass()
	// Output:
	// report available: 3 of 3 ended, 2 completed, 1 failed, first failed is bob: true
}
