package worker

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker/engine"
)

// When the LISTEN connection is dropped (its backend terminated), the
// worker falls back to polling, and once the store has reconnected the
// listener, notifications wake the worker again. Both the worker's clock
// (its poll timer) and the store's (the reconnect backoff) are mocks, so
// the test decides when a poll or a reconnect may happen: a job that
// completes while the worker's clock stands still was woken by a
// notification.
func TestRunnerListenDroppedFallsBackToPollingAndReconnects(t *testing.T) {
	storeClock, workerClock := clockrng.NewMock(), clockrng.NewMock()
	st := pgtest.OpenWith(t, pg.Options{Clock: storeClock})
	cfg := runnerConfig("q")
	cfg.PollInterval = time.Minute           // only the test's clock moves it
	cfg.DeadWorkerThreshold = 24 * time.Hour // no heartbeat while the clock stands still
	rec := &recordedResults{ids: map[ulid.ULID]bool{}}
	w, err := New(st, Options{Config: cfg, Clock: workerClock, Rand: clockrng.NewRand(1),
		Logger: slog.New(slog.DiscardHandler), Observer: rec})
	must(t, err)
	must(t, Handle(w, "q", func(context.Context, Job[payload]) error { return nil }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); must(t, <-done) }()

	waitFor(t, "the first tick to end", rec.dutiesStarted)
	oldPID := listener(t, st)
	if oldPID == 0 {
		t.Fatal("no listener connection after the first tick")
	}
	c := NewClient(st, clockrng.NewRand(2))
	enqueue := func(n int) ulid.ULID {
		id, err := Enqueue(context.Background(), c, payload{N: n}, WithQueue("q"))
		must(t, err)
		return id
	}

	first := enqueue(1)
	waitFor(t, "a notification to wake the worker for the first job", func() bool { return rec.recorded(first) })

	_, err = st.Pool().Exec(context.Background(), "SELECT pg_terminate_backend($1)", oldPID)
	must(t, err)
	waitFor(t, "the listener's backend to go", func() bool { return listener(t, st) == 0 })
	second := enqueue(2)
	time.Sleep(100 * time.Millisecond) // room for a wrong wake-up to show
	if got := jobStatus(t, st, second); got != store.Available {
		t.Fatalf("with no listener and no poll, the second job is %s, want available", got)
	}
	waitFor(t, "a poll to take the second job", func() bool {
		workerClock.Add(cfg.PollInterval + cfg.PollInterval/5)
		return rec.recorded(second)
	})

	waitFor(t, "the listener to reconnect", func() bool {
		storeClock.Add(time.Second) // past the reconnect backoff, short of the 30 s connection check
		pid := listener(t, st)
		return pid != 0 && pid != oldPID
	})
	third := enqueue(3)
	waitFor(t, "a notification to wake the worker again", func() bool { return rec.recorded(third) })
}

// recordedResults remembers which jobs' results were recorded and whether
// leader duties ran, as the worker's observer.
type recordedResults struct {
	mu     sync.Mutex
	ids    map[ulid.ULID]bool
	duties bool
}

func (r *recordedResults) Observe(e engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case engine.EventResultRecorded:
		r.ids[e.Job.ID] = true
	case engine.EventDutiesStarted:
		r.duties = true
	}
}

func (r *recordedResults) recorded(id ulid.ULID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
}

func (r *recordedResults) dutiesStarted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.duties
}

// listener returns the backend pid of the store's LISTEN connection once it
// has subscribed, or 0. The LISTEN must have finished (the backend is idle
// again): a notification sent while it still runs is not delivered, which
// made the test fail under load. A connection check after a quiet spell
// (the test moves the store's clock fast) replaces the LISTEN as the
// backend's last query.
func listener(t *testing.T, st *pg.Store) int32 {
	t.Helper()
	var pid int32
	err := st.Pool().QueryRow(context.Background(), `
		SELECT coalesce(max(pid), 0) FROM pg_stat_activity
		WHERE application_name = $1 AND state = 'idle' AND (query LIKE 'LISTEN %' OR query = '-- ping')`,
		"tickwork listen "+st.Schema()).Scan(&pid)
	must(t, err)
	return pid
}

func jobStatus(t *testing.T, st store.Store, id ulid.ULID) store.Status {
	t.Helper()
	var j store.Job
	must(t, st.InTx(context.Background(), func(tx store.Tx) error {
		var err error
		j, err = tx.GetJob(context.Background(), id)
		return err
	}))
	return j.Status
}
