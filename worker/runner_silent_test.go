package worker

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// silentStore never answers a transaction while silent is set: it waits
// for the caller's context, as a call on a half-open connection does.
type silentStore struct {
	store.Store
	silent   atomic.Bool
	timedOut atomic.Int32
}

func (s *silentStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	if s.silent.Load() {
		return hearNothing(ctx, &s.timedOut)
	}
	return s.Store.InTx(ctx, fn)
}

// hearNothing waits for ctx to end, as a call on a half-open connection
// does, counting in timedOut the calls its deadline ended.
func hearNothing(ctx context.Context, timedOut *atomic.Int32) error {
	<-ctx.Done()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		timedOut.Add(1)
	}
	return ctx.Err()
}

// A store that goes silent holds no call past Config.CallTimeout: the
// runner's calls end at their deadline, it backs off and tries again, and
// work resumes once the store answers.
func TestRunnerCallsEndAtTheirDeadlineOnASilentStore(t *testing.T) {
	st := &silentStore{Store: mem.New(time.Now)}
	cfg := runnerConfig("q")
	cfg.CallTimeout = 100 * time.Millisecond
	r := startWorker(t, st, cfg, 1, func(w *Worker) {
		must(t, Handle(w, "q", func(context.Context, Job[payload]) error { return nil }))
	})
	c := NewClient(st, clockrng.NewRand(2))
	st.silent.Store(true)
	waitFor(t, "several calls to end at their deadline", func() bool { return st.timedOut.Load() >= 3 })
	st.silent.Store(false)
	_, err := Enqueue(context.Background(), c, payload{1}, WithQueue("q"))
	must(t, err)
	waitFor(t, "the job enqueued once the store answers", func() bool {
		return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 1
	})
	must(t, r.stop())
}

// silentVacuumStore answers every transaction but never a vacuum: the
// VACUUM waits for its context, as a statement on a half-open connection
// does.
type silentVacuumStore struct {
	*mem.Store
	timedOut atomic.Int32
}

func (s *silentVacuumStore) VacuumJobs(ctx context.Context) error {
	return hearNothing(ctx, &s.timedOut)
}

// A vacuum on a silent connection ends at Config.VacuumTimeout, like a
// store call at its deadline: the leader claims and runs the next one
// after the interval instead of waiting for ever on the first.
func TestRunnerVacuumEndsAtItsDeadlineOnASilentStore(t *testing.T) {
	st := &silentVacuumStore{Store: mem.New(time.Now)}
	cfg := runnerConfig("v")
	cfg.CallTimeout = 100 * time.Millisecond
	cfg.VacuumDeadRows, cfg.VacuumInterval, cfg.VacuumTimeout = 1, 200*time.Millisecond, 100*time.Millisecond
	r := startWorker(t, st, cfg, 1, func(w *Worker) {
		must(t, Handle(w, "v", func(context.Context, Job[payload]) error { return nil }))
	})
	client := NewClient(st, clockrng.NewRand(2))
	waitFor(t, "two vacuums to end at their deadline", func() bool {
		if _, err := EnqueueMany(context.Background(), client, make([]payload, 5), WithQueue("v")); err != nil {
			t.Fatal(err)
		}
		return st.timedOut.Load() >= 2
	})
	must(t, r.stop())
}

var _ store.Vacuumer = (*silentVacuumStore)(nil)
