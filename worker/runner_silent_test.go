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
		<-ctx.Done()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.timedOut.Add(1)
		}
		return ctx.Err()
	}
	return s.Store.InTx(ctx, fn)
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
