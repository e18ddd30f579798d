package worker

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backends are the stores runner tests run against: the in-memory store on
// the wall clock, and PostgreSQL on its own clock.
var backends = []struct {
	name string
	open func(t *testing.T) store.Store
}{
	{"mem", func(*testing.T) store.Store { return mem.New(time.Now) }},
	{"pg", func(t *testing.T) store.Store { return pgtest.Open(t, nil) }},
}

func eachBackend(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open(t)) })
	}
}

// runnerConfig has short intervals so runner tests finish quickly; nothing
// asserts on how fast anything happens.
func runnerConfig(queues ...string) Config {
	cfg := DefaultConfig()
	cfg.Queues = queues
	cfg.PollInterval = 20 * time.Millisecond
	cfg.HeartbeatInterval = 100 * time.Millisecond
	cfg.LeaseTTL = time.Second
	cfg.LeaderInterval = 50 * time.Millisecond
	cfg.DeadWorkerThreshold = time.Second
	cfg.Backoff = clockrng.Backoff{Base: 20 * time.Millisecond, Factor: 2}
	cfg.MaxRetries = 3
	cfg.DrainTimeout = 5 * time.Second
	return cfg
}

// running is a worker whose Run goroutine the test controls.
type running struct {
	w      *Worker
	cancel context.CancelFunc
	done   chan error
}

// startWorker builds a worker with cfg, lets register add handlers, and
// runs it until stop is called or the test ends.
func startWorker(t *testing.T, st store.Store, cfg Config, seed uint64, register func(*Worker)) *running {
	t.Helper()
	return startWorkerWith(t, st, Options{Config: cfg, Rand: clockrng.NewRand(seed), Logger: slog.New(slog.DiscardHandler)}, register)
}

// startWorkerWith is startWorker with every option given.
func startWorkerWith(t *testing.T, st store.Store, opts Options, register func(*Worker)) *running {
	t.Helper()
	w, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	register(w)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{w: w, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- w.Run(ctx) }()
	t.Cleanup(func() { _ = r.stop() })
	return r
}

// stop cancels Run and returns its result (once; later calls return nil).
func (r *running) stop() error {
	r.cancel()
	err, ok := <-r.done
	if ok {
		close(r.done)
	}
	return err
}

// waitFor polls cond until it holds. The generous limit only keeps a broken
// test from hanging; no test asserts on speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func listJobs(t testing.TB, st store.Store, f store.JobFilter) []store.Job {
	t.Helper()
	f.Limit = 100000
	var out []store.Job
	if err := st.InTx(context.Background(), func(tx store.Tx) error {
		var err error
		out, err = tx.ListJobs(context.Background(), f)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// settled reports whether no job is waiting or running. It reads every row
// in one statement (one snapshot): separate reads per status could miss a
// row that moves from running to lost to scheduled in between.
func settled(t *testing.T, st store.Store) bool {
	for _, j := range listJobs(t, st, store.JobFilter{}) {
		if !j.Status.Terminal() {
			return false
		}
	}
	return true
}

// chain returns the attempts of a job, following next_attempt_id.
func chain(t *testing.T, st store.Store, id ulid.ULID) []store.Job {
	t.Helper()
	var out []store.Job
	err := st.InTx(context.Background(), func(tx store.Tx) error {
		for !id.IsZero() {
			j, err := tx.GetJob(context.Background(), id)
			if err != nil {
				return err
			}
			out = append(out, j)
			id = j.NextAttemptID
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func listWorkers(t *testing.T, st store.Store) []store.Worker {
	t.Helper()
	var out []store.Worker
	if err := st.InTx(context.Background(), func(tx store.Tx) error {
		var err error
		out, err = tx.ListWorkers(context.Background())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func leaseHolder(t *testing.T, st store.Store) ulid.ULID {
	t.Helper()
	var l store.Lease
	err := st.InTx(context.Background(), func(tx store.Tx) error {
		var err error
		l, err = tx.GetLease(context.Background())
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return ulid.ULID{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return l.WorkerID
}
