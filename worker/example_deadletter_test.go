package worker_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A queue's jobs that fail for good move to its dead-letter queue, keeping
// the queue they came from; Redrive sends them back as new attempts,
// chained to the dead rows. Here a worker's failure is played on the
// store, as the worker records it: the failure, then the move.
func ExampleClient_Redrive() {
	ctx := context.Background()
	st := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	client := worker.NewClient(st, nil)
	_ = client.SetQueueDeadLetter(ctx, "welcome", "welcome.dead") // or worker.DeadLetter on the handler
	id, _ := worker.Enqueue(ctx, client, Welcome{User: "bob"})
	_ = st.InTx(ctx, func(tx store.Tx) error { // the handler fails it for good
		w := mustWorker(ctx, tx)
		_, _ = tx.Reserve(ctx, w, []string{"welcome"}, 1)
		_ = tx.FailJob(ctx, w, id, "mailbox full")
		dead, err := tx.DeadLetterJob(ctx, id)
		fmt.Println(dead.Status, "in", dead.Queue, "from", dead.DeadFrom)
		return err
	})
	next, _ := client.Redrive(ctx, "welcome.dead")
	_ = st.InTx(ctx, func(tx store.Tx) error {
		j, _ := tx.GetJob(ctx, next[0])
		old, err := tx.GetJob(ctx, id)
		fmt.Println(j.Status, "in", j.Queue, "attempt", j.Attempt, "chained:", old.NextAttemptID == j.ID)
		return err
	})
	fmt.Println(client.SetQueueDeadLetter(ctx, "welcome", "welcome"))
	// Output:
	// failed in welcome.dead from welcome
	// available in welcome attempt 1 chained: true
	// worker: set dead-letter queue of "welcome": queue "welcome" cannot dead-letter to itself: invalid input
}
