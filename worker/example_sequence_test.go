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

// The jobs of one sequence run one at a time in enqueue order: here the
// steps of one customer's order. The second step fails for good and
// halts the sequence until an operator skips it (or retries it).
func ExampleSequenceKey() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	steps := []Welcome{{User: "charge"}, {User: "ship"}, {User: "invoice"}}
	ids, _ := worker.EnqueueMany(ctx, client, steps, worker.SequenceKey("order-42"))
	reserve := func() []store.Job {
		var jobs []store.Job
		_ = st.InTx(ctx, func(tx store.Tx) (err error) {
			jobs, err = tx.Reserve(ctx, mustWorker(ctx, tx), []string{"welcome"}, 10)
			return err
		})
		for _, j := range jobs {
			fmt.Println("started", string(j.Payload))
		}
		return jobs
	}
	end := func(j store.Job, failed bool) {
		_ = st.InTx(ctx, func(tx store.Tx) error {
			if failed {
				return tx.FailJob(ctx, j.StartedBy, j.ID, "carrier refused")
			}
			_, err := tx.CompleteJobs(ctx, store.Completion{Worker: j.StartedBy, IDs: []ulid.ULID{j.ID}})
			return err
		})
	}
	end(reserve()[0], false) // charge
	end(reserve()[0], true)  // ship fails for good
	fmt.Println("halted:", len(reserve()) == 0)
	skipped, _ := client.SkipJob(ctx, ids[1])
	fmt.Println("skipped", string(skipped.Payload))
	reserve()
	// Output:
	// started {"user":"charge"}
	// started {"user":"ship"}
	// halted: true
	// skipped {"user":"ship"}
	// started {"user":"invoice"}
}
