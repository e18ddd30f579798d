package worker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker/engine"
)

// flakyStore fails every transaction while down is set.
type flakyStore struct {
	store.Store
	down     atomic.Bool
	refusals atomic.Int32
}

func (f *flakyStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if f.down.Load() {
		f.refusals.Add(1)
		return fmt.Errorf("flaky store: %w", store.ErrUnavailable)
	}
	return f.Store.InTx(ctx, fn)
}

// A database outage never ends Run: it backs off, and work resumes when the
// store answers again.
func TestRunnerSurvivesStoreOutage(t *testing.T) {
	st := &flakyStore{Store: mem.New(time.Now)}
	r := startWorker(t, st, runnerConfig("q"), 1, func(w *Worker) {
		must(t, Handle(w, "q", func(context.Context, Job[payload]) error { return nil }))
	})
	c := NewClient(st, clockrng.NewRand(2))
	_, err := Enqueue(context.Background(), c, payload{1}, WithQueue("q"))
	must(t, err)
	waitFor(t, "the first job", func() bool { return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 1 })
	st.down.Store(true)
	waitFor(t, "several refused transactions", func() bool { return st.refusals.Load() >= 4 })
	st.down.Store(false)
	_, err = Enqueue(context.Background(), c, payload{2}, WithQueue("q"))
	must(t, err)
	waitFor(t, "the job enqueued after the outage", func() bool {
		return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 2
	})
	must(t, r.stop())
}

// A worker declared dead while running registers again and keeps working.
func TestRunnerRegistersAgainAfterBeingDeclaredDead(t *testing.T) {
	st := mem.New(time.Now)
	var mu sync.Mutex
	var ids []ulid.ULID
	obs := engine.ObserverFunc(func(e engine.Event) {
		if e.Kind == engine.EventRegistered {
			mu.Lock()
			ids = append(ids, e.Worker)
			mu.Unlock()
		}
	})
	registered := func() []ulid.ULID {
		mu.Lock()
		defer mu.Unlock()
		return append([]ulid.ULID(nil), ids...)
	}
	w, err := New(st, Options{Config: runnerConfig("q"), Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler), Observer: obs})
	must(t, err)
	must(t, Handle(w, "q", func(context.Context, Job[payload]) error { return nil }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	waitFor(t, "the worker to register", func() bool { return len(registered()) == 1 })
	must(t, st.InTx(context.Background(), func(tx store.Tx) error { return tx.ShutdownWorker(context.Background(), registered()[0]) }))
	waitFor(t, "the worker to register again", func() bool { return len(registered()) == 2 })
	_, err = Enqueue(context.Background(), NewClient(st, clockrng.NewRand(2)), payload{1}, WithQueue("q"))
	must(t, err)
	waitFor(t, "a job to run under the new id", func() bool {
		done := listJobs(t, st, store.JobFilter{Status: store.Completed})
		return len(done) == 1 && done[0].StartedBy == registered()[1]
	})
}

// noListen is a store whose notifications are unavailable.
type noListen struct{ store.Store }

func (noListen) Listen(context.Context) (<-chan store.Notification, error) {
	return nil, fmt.Errorf("listen: %w", store.ErrUnavailable)
}

// Without notifications the worker polls, and still shuts down cleanly.
func TestRunnerPollsWithoutNotifications(t *testing.T) {
	st := noListen{mem.New(time.Now)}
	r := startWorker(t, st, runnerConfig("q"), 1, func(w *Worker) {
		must(t, Handle(w, "q", func(context.Context, Job[payload]) error { return nil }))
	})
	_, err := Enqueue(context.Background(), NewClient(st, clockrng.NewRand(2)), payload{1}, WithQueue("q"))
	must(t, err)
	waitFor(t, "the job to run by polling", func() bool {
		return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 1
	})
	must(t, r.stop())
}
