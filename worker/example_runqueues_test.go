package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A running worker takes on a queue it has a handler for (AddQueue) and
// gives one up (RemoveQueue), which returns once the queue's running jobs
// finished and their results were recorded, as at shutdown. Bad input
// gets an error naming it.
func ExampleWorker_RemoveQueue() {
	cfg := quietConfig()
	cfg.Queues = []string{"welcome"}
	w, err := worker.New(mem.New(time.Now), worker.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	ok := func(context.Context, worker.Job[json.RawMessage]) error { return nil }
	_ = worker.Handle(w, "welcome", ok)
	_ = worker.Handle(w, "audit", ok) // handled, reserved from only once added
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	for errors.Is(w.AddQueue(ctx, "audit"), worker.ErrNotRunning) { // until Run has started
		time.Sleep(time.Millisecond)
	}
	fmt.Println(w.RemoveQueue(ctx, "welcome"))
	fmt.Println(w.RemoveQueue(ctx, "welcome"))
	fmt.Println(w.AddQueue(ctx, "billing"))
	stop()
	fmt.Println(<-ran)
	// Output:
	// <nil>
	// worker: remove queue "welcome": the worker does not reserve from it (its queues: "audit")
	// worker: add queue "billing": no handler is registered for it (Handle before Run)
	// <nil>
}
