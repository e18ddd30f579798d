package worker

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker/engine"
)

// armWatch is a mock clock that reports the duration of every timer armed
// on it.
type armWatch struct {
	*clockrng.Mock
	armed chan time.Duration
}

// Timer arms the mock's timer before it reports it: a test that moves the
// clock on the report must find the timer set, or it fires only a whole
// period after the move (seen under the race detector's slowdown).
func (c armWatch) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	select {
	case c.armed <- d:
	default: // nobody waits for that many
	}
	return t
}

// cancelRun is a worker on a mock clock, running one handler that blocks
// until its context is cancelled and reports the cause.
type cancelRun struct {
	clock   armWatch
	client  *Client
	started chan ulid.ULID
	cause   chan error
	fenced  chan ulid.ULID
}

// startCancelRun runs a worker on st whose clock only the test moves, with
// one job enqueued; it returns once the job's handler runs and the worker
// waits for its next poll.
func startCancelRun(t *testing.T, st store.Store, poll time.Duration) (*cancelRun, ulid.ULID) {
	t.Helper()
	r := &cancelRun{clock: armWatch{clockrng.NewMock(), make(chan time.Duration, 64)}, client: NewClient(st, clockrng.NewRand(2)),
		started: make(chan ulid.ULID, 1), cause: make(chan error, 1), fenced: make(chan ulid.ULID, 1)}
	cfg := runnerConfig("q")
	cfg.PollInterval = poll
	// The poll is the only timer: no heartbeat or lease renewal falls due
	// first (either would cut the wait short), and none is missed while the
	// clock stands still.
	cfg.HeartbeatInterval, cfg.DeadWorkerThreshold = 12*time.Hour, 24*time.Hour
	cfg.LeaseTTL = 4 * poll
	obs := engine.ObserverFunc(func(e engine.Event) {
		if e.Kind == engine.EventResultFenced {
			r.fenced <- e.Job.ID
		}
	})
	w, err := New(st, Options{Config: cfg, Clock: r.clock, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler), Observer: obs})
	must(t, err)
	must(t, Handle(w, "q", func(ctx context.Context, job Job[payload]) error {
		r.started <- job.ID
		<-ctx.Done()
		r.cause <- context.Cause(ctx)
		return ctx.Err()
	}))
	_, err = Enqueue(context.Background(), r.client, payload{1}, WithQueue("q"))
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		// A drain waits on the clock; a jump of more than a lease TTL
		// would time the shutdown's store calls out (engine.ShutdownCallTimeout).
		for {
			select {
			case err := <-done:
				must(t, err)
				return
			case <-time.After(100 * time.Millisecond):
				r.clock.Add(cfg.DrainTimeout)
			}
		}
	})
	var id ulid.ULID
	select {
	case id = <-r.started:
	case <-time.After(time.Minute):
		t.Fatal("the job's handler did not start")
	}
	for d := time.Duration(0); d < poll*9/10; { // the shortest jittered poll
		select {
		case d = <-r.clock.armed:
		case <-time.After(time.Minute):
			t.Fatal("the worker armed no poll timer after starting the job")
		}
	}
	return r, id
}

// stopped waits (in real time, generously) for the handler to return and
// checks that its context was cancelled because its job was, and that its
// result was fenced off, leaving the row cancelled with no retry.
func (r *cancelRun) stopped(t *testing.T, st store.Store, id ulid.ULID) {
	t.Helper()
	select {
	case cause := <-r.cause:
		if !errors.Is(cause, ErrJobCancelled) {
			t.Fatalf("the handler's context was cancelled with cause %v, want ErrJobCancelled", cause)
		}
	case <-time.After(time.Minute):
		t.Fatal("the cancelled job's handler was not stopped")
	}
	select { // the last job returning wakes the worker: no clock move needed
	case got := <-r.fenced:
		if got != id {
			t.Fatalf("fenced the result of %s, want %s", got, id)
		}
	case <-time.After(time.Minute):
		t.Fatal("the cancelled job's result was not fenced off")
	}
	if rows := chain(t, st, id); len(rows) != 1 || rows[0].Status != store.Cancelled {
		t.Fatalf("the cancelled job's attempts: %v, want one, cancelled", rows)
	}
}

// A cancel's notification stops the running handler at once: the worker's
// clock never moves, so no poll can have found it.
func TestRunnerCancelStopsTheHandlerOnItsNotification(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		r, id := startCancelRun(t, st, time.Hour)
		if _, err := r.client.Cancel(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		r.stopped(t, st, id)
	})
}

// noListenJobPasser is store/pg without notifications, its own job pass
// kept.
type noListenJobPasser struct{ *pg.Store }

func (noListenJobPasser) Listen(context.Context) (<-chan store.Notification, error) {
	return nil, errors.New("listen: off for the test")
}

// Without notifications, the job pass's check stops the handler within the
// longest jittered poll interval of the cancel: the test moves the
// worker's clock by that much once, and the handler must stop with no
// further move.
func TestRunnerCancelReachesTheHandlerWithoutNotifications(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"mem", func(*testing.T) store.Store { return noListen{mem.New(time.Now)} }},
		{"pg", func(t *testing.T) store.Store { return noListenJobPasser{pgtest.Open(t, nil)} }},
	} {
		t.Run(b.name, func(t *testing.T) {
			st := b.open(t)
			const poll = time.Minute
			r, id := startCancelRun(t, st, poll)
			if _, err := r.client.Cancel(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			r.clock.Add(poll + poll/10)
			r.stopped(t, st, id)
		})
	}
}
