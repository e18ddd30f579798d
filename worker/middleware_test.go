package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// newInlineWorker returns a worker whose handlers the tests call through
// Execute, without a loop.
func newInlineWorker(t *testing.T, mws ...Middleware) *Worker {
	t.Helper()
	w, err := New(mem.New(func() time.Time { return epoch }), Options{
		Clock: clockrng.NewMock(), Rand: clockrng.NewRand(1),
		Logger: slog.New(slog.DiscardHandler), Middleware: mws,
	})
	must(t, err)
	return w
}

// rowFor returns a running row of queue with payload, as a reservation
// hands it out.
func rowFor(queue, payload string) store.Job {
	return store.Job{ID: clockrng.NewULID(epoch, clockrng.NewRand(7)), Queue: queue, Payload: json.RawMessage(payload),
		Metadata: json.RawMessage(`{"tenant":"acme"}`), Status: store.Running, Attempt: 2, CreatedAt: epoch, ScheduledAt: epoch}
}

// tracing returns a middleware that appends name's entry and exit to calls.
func tracing(calls *[]string, name string) Middleware {
	return func(ctx context.Context, job RawJob, next func(context.Context) error) error {
		*calls = append(*calls, name+" in")
		err := next(ctx)
		*calls = append(*calls, name+" out")
		return err
	}
}

func TestMiddlewareOrder(t *testing.T) {
	var calls []string
	w := newInlineWorker(t, tracing(&calls, "worker 1"), tracing(&calls, "worker 2"))
	must(t, Handle(w, "q", func(ctx context.Context, job Job[struct{}]) error {
		calls = append(calls, "handler")
		return nil
	}, WithMiddleware(tracing(&calls, "handler 1")), WithMiddleware(tracing(&calls, "handler 2"))))
	must(t, Handle(w, "other", func(ctx context.Context, job Job[struct{}]) error {
		calls = append(calls, "other handler")
		return nil
	}))

	if r := w.executeInline(context.Background(), rowFor("q", `{}`)); r.Decision != Succeed {
		t.Fatalf("decision %v (%s), want succeed", r.Decision, r.Reason)
	}
	want := []string{"worker 1 in", "worker 2 in", "handler 1 in", "handler 2 in", "handler",
		"handler 2 out", "handler 1 out", "worker 2 out", "worker 1 out"}
	if !slices.Equal(calls, want) {
		t.Errorf("calls %q,\nwant %q", calls, want)
	}
	calls = nil
	w.executeInline(context.Background(), rowFor("other", `{}`))
	if want := []string{"worker 1 in", "worker 2 in", "other handler", "worker 2 out", "worker 1 out"}; !slices.Equal(calls, want) {
		t.Errorf("another queue's calls %q, want only the worker's middleware: %q", calls, want)
	}
}

func TestMiddlewareSeesTheJobAndPassesContext(t *testing.T) {
	type key struct{}
	var seen RawJob
	tenant := func(ctx context.Context, job RawJob, next func(context.Context) error) error {
		seen = job
		v, _ := job.MetadataValue("tenant")
		return next(context.WithValue(ctx, key{}, v))
	}
	w := newInlineWorker(t, tenant)
	var got string
	must(t, Handle(w, "q", func(ctx context.Context, job Job[map[string]int]) error {
		got = fmt.Sprintln(ctx.Value(key{}), job.Payload["n"])
		return nil
	}))
	row := rowFor("q", `{"n":3}`)
	w.executeInline(context.Background(), row)
	if got != "acme 3\n" {
		t.Errorf("handler saw %q, want the tenant from the middleware and the payload", got)
	}
	if seen.ID != row.ID || seen.Queue != "q" || seen.Attempt != 2 || string(seen.Payload) != `{"n":3}` ||
		string(seen.Metadata) != `{"tenant":"acme"}` || !seen.ScheduledAt.Equal(epoch) {
		t.Errorf("middleware saw %+v, want the row's id, queue, attempt, payload and metadata", seen)
	}
}

// TestMiddlewareDecides: what a middleware returns without calling next
// maps to a decision as a handler's error does, and a panic is recovered.
func TestMiddlewareDecides(t *testing.T) {
	refused := errors.New("no tenant")
	for _, tc := range []struct {
		name   string
		mw     Middleware
		want   Decision
		reason string
	}{
		{"fail", func(context.Context, RawJob, func(context.Context) error) error { return FailJob(refused) }, Fail, "no tenant"},
		{"plain error", func(context.Context, RawJob, func(context.Context) error) error { return refused }, Retry, "no tenant"},
		{"nil", func(context.Context, RawJob, func(context.Context) error) error { return nil }, Succeed, ""},
		{"panic", func(context.Context, RawJob, func(context.Context) error) error { panic("middleware broke") }, Retry, "handler panicked: middleware broke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newInlineWorker(t, tc.mw)
			called := false
			must(t, Handle(w, "q", func(ctx context.Context, job Job[struct{}]) error { called = true; return nil }))
			r := w.executeInline(context.Background(), rowFor("q", `{}`))
			if r.Decision != tc.want || r.Reason != tc.reason || called {
				t.Errorf("decision %v reason %q handler called %v; want %v %q and no call", r.Decision, r.Reason, called, tc.want, tc.reason)
			}
		})
	}
}

func TestMiddlewareAroundTimeoutsAndUndecodablePayloads(t *testing.T) {
	clock := clockrng.NewMock()
	var deadline bool
	w, err := New(mem.New(func() time.Time { return epoch }), Options{Clock: clock, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler),
		Middleware: []Middleware{func(ctx context.Context, job RawJob, next func(context.Context) error) error {
			_, deadline = ctx.Deadline()
			return next(ctx)
		}}})
	must(t, err)
	must(t, Handle(w, "q", func(ctx context.Context, job Job[struct{ N int }]) error { return nil }, WithTimeout(time.Minute)))
	r := w.executeInline(context.Background(), rowFor("q", `"not an object"`))
	if r.Decision != Fail || !strings.Contains(r.Reason, "payload did not decode") {
		t.Errorf("undecodable payload through middleware: %v %q, want fail", r.Decision, r.Reason)
	}
	if !deadline {
		t.Error("the middleware's context has no deadline; the handler's timeout should cover it")
	}
}

func TestDeprecatedQueuesRunNoMiddleware(t *testing.T) {
	w := newInlineWorker(t, func(context.Context, RawJob, func(context.Context) error) error {
		return FailJob(errors.New("refused"))
	})
	must(t, w.HandleDeprecated("old"))
	if r := w.executeInline(context.Background(), rowFor("old", `{}`)); r.Decision != Succeed {
		t.Errorf("deprecated job: %v %q, want succeed without middleware", r.Decision, r.Reason)
	}
}

func TestExecuteWithoutHandler(t *testing.T) {
	w := newInlineWorker(t)
	r := w.executeInline(context.Background(), rowFor("nobody", `{}`))
	if r.Decision != Fail || r.Reason != `no handler for queue "nobody" on this worker` {
		t.Errorf("job without handler: %v %q, want fail naming the queue", r.Decision, r.Reason)
	}
	must(t, w.HandleDeprecated("b"))
	must(t, Handle(w, "a", func(context.Context, Job[struct{}]) error { return nil }))
	if q := w.HandledQueues(); !slices.Equal(q, []string{"a", "b"}) {
		t.Errorf("HandledQueues %q, want [a b]", q)
	}
}
