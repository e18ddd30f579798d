package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A unique key makes a second enqueue of the same report a no-op while
// the first waits or runs: the call returns the existing job's id, and
// WithOnDuplicate says so. The store enforces it in the insert's transaction.
func ExampleWithUniqueKey() {
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	ctx := context.Background()
	report := worker.WithOnDuplicate(func(_ int, existing store.Job) {
		fmt.Printf("already enqueued, %s\n", existing.Status)
	})
	first, err := worker.Enqueue(ctx, client, map[string]string{"report": "daily"}, worker.WithQueue("reports"),
		worker.WithUniqueKey("daily-report"), report)
	if err != nil {
		panic(err)
	}
	again, err := worker.Enqueue(ctx, client, map[string]string{"report": "daily"}, worker.WithQueue("reports"),
		worker.WithUniqueKey("daily-report"), report)
	if err != nil {
		panic(err)
	}
	fmt.Println("same job:", again == first)
	// Output:
	// already enqueued, available
	// same job: true
}

// A handler records a JSON output, kept with the completed row; worker
// jobs show prints it.
func ExampleRecordOutput() {
	st := mem.New(time.Now)
	w, err := worker.New(st, worker.Options{Config: quietConfig(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	err = worker.Handle(w, "reports", func(ctx context.Context, job worker.Job[map[string]string]) error {
		stop() // the example ends after one job; Run drains it and returns
		return worker.RecordOutput(ctx, map[string]int{"rows": 42})
	})
	if err != nil {
		panic(err)
	}
	if _, err := worker.Enqueue(context.Background(), worker.NewClient(st, nil), map[string]string{}, worker.WithQueue("reports")); err != nil {
		panic(err)
	}
	if err := w.Run(ctx); err != nil {
		panic(err)
	}
	rows, err := store.Snapshot(context.Background(), st)
	if err != nil {
		panic(err)
	}
	fmt.Println(rows.Jobs[0].Status, string(rows.Jobs[0].Output))
	// Output: completed {"rows":42}
}
