package worker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker/engine"
)

// queueRig is a worker reserving from queue "a", with blocking handlers
// for "a", "b" and "c" (c's registered but never configured), whose Run
// the test controls, and the queue events its lane reported.
type queueRig struct {
	w       *Worker
	client  *Client
	st      store.Store
	release map[string]chan struct{} // closing it lets the queue's handlers return
	started chan string              // a handler began, with its queue
	mu      sync.Mutex
	events  []engine.Event // queue-added, -removed, -drained
}

func newQueueRig(t *testing.T, st store.Store) *queueRig {
	t.Helper()
	g := &queueRig{st: st, client: NewClient(st, clockrng.NewRand(2)), started: make(chan string, 16),
		release: map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}}
	obs := engine.ObserverFunc(func(e engine.Event) {
		if e.Kind == engine.EventQueueAdded || e.Kind == engine.EventQueueRemoved || e.Kind == engine.EventQueueDrained {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.events = append(g.events, e)
		}
	})
	w, err := New(st, Options{Config: runnerConfig("a"), Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler), Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	g.w = w
	for q, release := range g.release {
		err := Handle(w, q, func(context.Context, Job[payload]) error { g.started <- q; <-release; return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// sawEvent reports whether the lane reported an event of kind for queue.
func (g *queueRig) sawEvent(kind engine.EventKind, queue string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range g.events {
		if e.Kind == kind && e.Reason == queue {
			return true
		}
	}
	return false
}

func (g *queueRig) enqueue(t *testing.T, queue string) ulid.ULID {
	t.Helper()
	id, err := Enqueue(context.Background(), g.client, payload{1}, WithQueue(queue))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (g *queueRig) status(t *testing.T, id ulid.ULID) store.Status {
	t.Helper()
	return chain(t, g.st, id)[0].Status
}

// TestRemoveQueueDrainsAsAtShutdown: a removed queue's running job
// finishes and has its result recorded before RemoveQueue returns,
// nothing more of it is reserved, and AddQueue has the worker reserve
// from a queue it did not.
func TestRemoveQueueDrainsAsAtShutdown(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		g := newQueueRig(t, st)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ran := make(chan error, 1)
		go func() { ran <- g.w.Run(ctx) }()
		first := g.enqueue(t, "a")
		if q := <-g.started; q != "a" {
			t.Fatalf("started a job of %q, want a", q)
		}
		removed := make(chan error, 1)
		go func() { removed <- g.w.RemoveQueue(context.Background(), "a") }()
		waitFor(t, "the lane to take the removal", func() bool { return g.sawEvent(engine.EventQueueRemoved, "a") })
		second := g.enqueue(t, "a")
		select {
		case err := <-removed:
			t.Fatalf("RemoveQueue returned %v while a job of the queue runs", err)
		default:
		}
		close(g.release["a"])
		if err := <-removed; err != nil {
			t.Fatalf("RemoveQueue: %v", err)
		}
		if st := g.status(t, first); st != store.Completed {
			t.Errorf("RemoveQueue returned with the running job %s, want its result recorded (completed)", st)
		}

		if err := g.w.AddQueue(context.Background(), "b"); err != nil {
			t.Fatalf("AddQueue b: %v", err)
		}
		b := g.enqueue(t, "b")
		if q := <-g.started; q != "b" {
			t.Fatalf("started a job of %q after adding b, want b", q)
		}
		close(g.release["b"])
		waitFor(t, "the job of b to complete", func() bool { return g.status(t, b) == store.Completed })
		if st := g.status(t, second); st != store.Available {
			t.Errorf("job of removed queue a is %s, want available: nothing of it is reserved", st)
		}
		cancel()
		if err := <-ran; err != nil {
			t.Fatalf("Run: %v", err)
		}
	})
}

// TestQueueChangesRefuseBadInput: unknown, duplicate, unhandled and
// invalid queues, and a worker not running, get errors naming them.
func TestQueueChangesRefuseBadInput(t *testing.T) {
	g := newQueueRig(t, mem.New(time.Now))
	bg := context.Background()
	if err := g.w.AddQueue(bg, "b"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("AddQueue before Run: %v, want ErrNotRunning", err)
	}
	ctx, cancel := context.WithCancel(bg)
	ran := make(chan error, 1)
	go func() { ran <- g.w.Run(ctx) }()
	waitFor(t, "Run to start", func() bool { g.w.mu.Lock(); defer g.w.mu.Unlock(); return g.w.lanesCtl != nil })
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"add a queue it reserves from", g.w.AddQueue(bg, "a"), `add queue "a": the worker already reserves from it`},
		{"add a queue without a handler", g.w.AddQueue(bg, "nope"), `add queue "nope": no handler is registered for it`},
		{"add an invalid name", g.w.AddQueue(bg, ""), `queue name "" must be 1 to`},
		{"remove an unknown queue", g.w.RemoveQueue(bg, "b"), `remove queue "b": the worker does not reserve from it (its queues: "a")`},
		{"remove an invalid name", g.w.RemoveQueue(bg, "x\x00"), "contains a NUL byte"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.what, c.err, c.want)
		}
	}
	if err := g.w.AddQueue(bg, ""); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("AddQueue of an invalid name: %v, want store.ErrInvalid", err)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := g.w.RemoveQueue(bg, "a"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("RemoveQueue after Run returned: %v, want ErrNotRunning", err)
	}
}

// TestRemoveQueueGivesUpWithItsContext: the call ends with its ctx while
// the job runs on, and the drain still completes it.
func TestRemoveQueueGivesUpWithItsContext(t *testing.T) {
	g := newQueueRig(t, mem.New(time.Now))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- g.w.Run(ctx) }()
	id := g.enqueue(t, "a")
	<-g.started
	short, stop := context.WithCancel(context.Background())
	stop()
	if err := g.w.RemoveQueue(short, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("RemoveQueue with an ended ctx while a job runs: %v, want context.Canceled", err)
	}
	close(g.release["a"])
	waitFor(t, "the drained job to complete", func() bool { return g.status(t, id) == store.Completed })
	waitFor(t, "the lane to report the drain", func() bool { return g.sawEvent(engine.EventQueueDrained, "a") })
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
