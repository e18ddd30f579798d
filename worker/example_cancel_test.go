package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// Cancelling a running job stops its handler: the worker running it
// cancels the handler's context with cause ErrJobCancelled (any process,
// on the store's notification, or its next check when that is lost), and
// the job is neither completed nor retried.
func ExampleClient_Cancel() {
	st := mem.New(time.Now)
	w, _ := worker.New(st, worker.Options{Config: quietConfig(), Logger: slog.New(slog.DiscardHandler)})
	started, stopped := make(chan ulid.ULID), make(chan error)
	_ = worker.Handle(w, "welcome", func(ctx context.Context, job worker.Job[Welcome]) error {
		started <- job.ID
		<-ctx.Done() // a slow call that honours its context: an HTTP request, a query
		stopped <- context.Cause(ctx)
		return ctx.Err()
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()

	client := worker.NewClient(st, nil)
	_, _ = worker.Enqueue(context.Background(), client, Welcome{User: "ada"})
	id := <-started
	job, err := client.Cancel(context.Background(), id)
	fmt.Println(job.Status, err)
	fmt.Println(<-stopped)
	_, err = client.Cancel(context.Background(), id)
	fmt.Println(errors.Is(err, store.ErrConflict))
	stop()
	fmt.Println(<-done)
	_ = st.InTx(context.Background(), func(tx store.Tx) error {
		row, err := tx.GetJob(context.Background(), id) // its result was fenced off: still cancelled, no retry
		fmt.Println(row.Status, row.NextAttemptID.IsZero())
		return err
	})
	// Output:
	// cancelled <nil>
	// worker: the job was cancelled
	// true
	// <nil>
	// cancelled true
}
