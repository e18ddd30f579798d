package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// tenantKey carries the tenant in a context, in the enqueuing service and
// in the handler alike.
type tenantKey struct{}

// A tenant id travels from the request that enqueues a job to the handler
// that runs it: an enqueue hook writes it into the job's metadata, and a
// middleware puts it back into the handler's context. A job enqueued
// without a tenant is refused, and nothing is stored.
func ExampleMiddleware() {
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	err := client.OnEnqueue(func(ctx context.Context, job worker.PendingJob) error {
		tenant, ok := ctx.Value(tenantKey{}).(string)
		if !ok {
			return errors.New("no tenant in the context")
		}
		job.Metadata["tenant"] = tenant
		return nil
	})
	if err != nil {
		panic(err)
	}

	tenantFromJob := func(ctx context.Context, job worker.RawJob, next func(context.Context) error) error {
		tenant, ok := job.MetadataValue("tenant")
		if !ok {
			return worker.FailJob(fmt.Errorf("job %s has no tenant", job.ID))
		}
		return next(context.WithValue(ctx, tenantKey{}, tenant))
	}
	w, _ := worker.New(st, worker.Options{Config: quietConfig(), Logger: slog.New(slog.DiscardHandler),
		Middleware: []worker.Middleware{tenantFromJob}})
	ctx, stop := context.WithCancel(context.Background())
	_ = worker.Handle(w, "welcome", func(ctx context.Context, job worker.Job[Welcome]) error {
		fmt.Printf("welcome, %s, to tenant %s\n", job.Payload.User, ctx.Value(tenantKey{}))
		stop()
		return nil
	})

	_, err = worker.Enqueue(context.Background(), client, Welcome{User: "nobody"})
	fmt.Println(err)
	request := context.WithValue(context.Background(), tenantKey{}, "acme")
	if _, err := worker.Enqueue(request, client, Welcome{User: "ada"}); err != nil {
		panic(err)
	}
	_ = w.Run(ctx)
	// Output:
	// worker: enqueue hook refused payload 0 for queue "welcome": no tenant in the context
	// welcome, ada, to tenant acme
}
