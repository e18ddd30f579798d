package worker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/mem"
)

// BenchmarkHandlerCall prints what middleware adds to one handler call
// (a no-op handler run by Execute, with its telemetry), next to the same
// call without middleware.
func BenchmarkHandlerCall(b *testing.B) {
	pass := func(ctx context.Context, job RawJob, next func(context.Context) error) error { return next(ctx) }
	for _, n := range []int{0, 1, 3} {
		b.Run(map[int]string{0: "no middleware", 1: "1 middleware", 3: "3 middleware"}[n], func(b *testing.B) {
			mws := make([]Middleware, n)
			for i := range mws {
				mws[i] = pass
			}
			w := newInlineWorkerB(b, mws)
			if err := Handle(w, "q", func(context.Context, Job[struct{}]) error { return nil }); err != nil {
				b.Fatal(err)
			}
			row, ctx := rowFor("q", `{}`), context.Background()
			b.ReportAllocs()
			for b.Loop() {
				w.executeInline(ctx, row)
			}
		})
	}
}

// BenchmarkEnqueueHooks prints what two hooks add to a batch of 100
// enqueues into the in-memory store, next to the same batch without.
func BenchmarkEnqueueHooks(b *testing.B) {
	tenant := func(ctx context.Context, job PendingJob) error { job.Metadata["tenant"] = "acme"; return nil }
	payloads := make([]email, 100)
	for _, hooks := range []int{0, 2} {
		b.Run(map[int]string{0: "no hooks", 2: "2 hooks"}[hooks], func(b *testing.B) {
			c := NewClient(mem.New(func() time.Time { return epoch }), clockrng.NewRand(1))
			for range hooks {
				if err := c.OnEnqueue(tenant); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := newJobs(context.Background(), c, payloads, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func newInlineWorkerB(b *testing.B, mws []Middleware) *Worker {
	w, err := New(mem.New(func() time.Time { return epoch }), Options{Clock: clockrng.NewMock(), Rand: clockrng.NewRand(1),
		Logger: slog.New(slog.DiscardHandler), Middleware: mws})
	if err != nil {
		b.Fatal(err)
	}
	return w
}
