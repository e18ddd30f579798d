package worker_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// A unique key makes a second enqueue of the same report a no-op while
// the first waits or runs: the call returns the existing job's id, and
// OnDuplicate says so. The store enforces it in the insert's transaction.
func ExampleUniqueKey() {
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	ctx := context.Background()
	report := worker.OnDuplicate(func(_ int, existing store.Job) {
		fmt.Printf("already enqueued, %s\n", existing.Status)
	})
	first, err := worker.Enqueue(ctx, client, map[string]string{"report": "daily"}, worker.ToQueue("reports"),
		worker.UniqueKey("daily-report"), report)
	if err != nil {
		panic(err)
	}
	again, err := worker.Enqueue(ctx, client, map[string]string{"report": "daily"}, worker.ToQueue("reports"),
		worker.UniqueKey("daily-report"), report)
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
	w, err := worker.New(st, worker.Options{Config: quietConfig()})
	if err != nil {
		panic(err)
	}
	err = worker.Handle(w, "reports", func(ctx context.Context, job worker.Job[map[string]string]) error {
		return worker.RecordOutput(ctx, map[string]int{"rows": 42})
	})
	if err != nil {
		panic(err)
	}
	job := store.Job{Queue: "reports", Payload: []byte(`{}`)}
	r := w.Execute(context.Background(), job)
	fmt.Println(r.Decision, string(r.Output))
	// Output: succeed {"rows":42}
}
