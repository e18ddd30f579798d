package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

type payload struct {
	N int `json:"n"`
}

// Two workers in one process run every kind of handler outcome; each job's
// attempt chain is checked row by row.
func TestRunnerHandlerOutcomes(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig()
		var undecodedCalls atomic.Int32
		register := func(w *Worker) {
			must(t, Handle(w, "ok", func(context.Context, Job[payload]) error { return nil }))
			must(t, Handle(w, "panic", func(context.Context, Job[payload]) error { panic("boom") }))
			must(t, Handle(w, "slow", func(ctx context.Context, _ Job[payload]) error {
				<-ctx.Done()
				return ctx.Err()
			}, WithTimeout(30*time.Millisecond)))
			must(t, Handle(w, "fail", func(context.Context, Job[payload]) error { return FailJob(errors.New("bad input")) }))
			must(t, Handle(w, "retry", func(_ context.Context, j Job[payload]) error {
				return RetryJob(fmt.Errorf("try %d", j.Attempt))
			}))
			must(t, Handle(w, "typed", func(context.Context, Job[payload]) error {
				undecodedCalls.Add(1)
				return nil
			}))
			must(t, w.HandleDeprecated("old"))
		}
		startWorker(t, st, cfg, 1, register)
		startWorker(t, st, cfg, 2, register)

		c := NewClient(st, clockrng.NewRand(3))
		first := map[string]ulid.ULID{}
		for _, q := range []string{"ok", "panic", "slow", "fail", "retry", "old"} {
			id, err := Enqueue(context.Background(), c, payload{N: 1}, WithQueue(q))
			must(t, err)
			first[q] = id
		}
		id, err := Enqueue(context.Background(), c, []string{"not", "an object"}, WithQueue("typed"))
		must(t, err)
		first["typed"] = id
		waitFor(t, "every attempt to end", func() bool { return settled(t, st) })

		expectChain(t, st, first["ok"], cfg, []store.Status{store.Completed}, "")
		expectChain(t, st, first["old"], cfg, []store.Status{store.Completed}, "")
		allFailed := []store.Status{store.Failed, store.Failed, store.Failed, store.Failed}
		// Spelled as the checker reads them (props.checkDecision).
		expectChain(t, st, first["panic"], cfg, allFailed, props.PanicReason+"boom")
		expectChain(t, st, first["slow"], cfg, allFailed, "timed out after 30ms")
		expectChain(t, st, first["retry"], cfg, allFailed, "try ")
		expectChain(t, st, first["fail"], cfg, []store.Status{store.Failed}, "bad input")
		expectChain(t, st, first["typed"], cfg, []store.Status{store.Failed}, props.UndecodableReason+" as worker.payload")
		if n := undecodedCalls.Load(); n != 0 {
			t.Errorf("the handler ran %d times on a payload that does not decode", n)
		}
	})
}

// expectChain checks a job's attempts: their statuses, numbering, shared
// payload, reasons, and that each retry was scheduled at the failure time
// plus the backoff delay and started no earlier.
func expectChain(t *testing.T, st store.Store, id ulid.ULID, cfg Config, want []store.Status, reason string) {
	t.Helper()
	rows := chain(t, st, id)
	if len(rows) != len(want) {
		t.Fatalf("job %s on %q: %d attempts, want %d: %+v", id, rows[0].Queue, len(rows), len(want), rows)
	}
	for i, r := range rows {
		if r.Status != want[i] || r.Attempt != i || r.Queue != rows[0].Queue || string(r.Payload) != string(rows[0].Payload) {
			t.Errorf("%q attempt %d: %+v, want status %s and the first row's queue and payload", r.Queue, i, r, want[i])
		}
		if r.Status == store.Failed && !strings.Contains(r.FailedReason, reason) {
			t.Errorf("%q attempt %d failed with %q, want it to mention %q", r.Queue, i, r.FailedReason, reason)
		}
		if i == 0 {
			continue
		}
		prev := rows[i-1]
		if wantAt := prev.FailedAt.Add(cfg.Backoff.Nominal(prev.Attempt)); !r.ScheduledAt.Equal(wantAt) {
			t.Errorf("%q attempt %d scheduled at %v, want failure time + %v = %v", r.Queue, i, r.ScheduledAt, cfg.Backoff.Nominal(prev.Attempt), wantAt)
		}
		if r.StartedAt.Before(r.ScheduledAt) {
			t.Errorf("%q attempt %d started at %v, before its scheduled time %v", r.Queue, i, r.StartedAt, r.ScheduledAt)
		}
	}
	if last := rows[len(rows)-1]; !last.NextAttemptID.IsZero() {
		t.Errorf("%q: the last attempt points at %s", last.Queue, last.NextAttemptID)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// With two workers, a schedule fires once per cron time and its runs never
// overlap.
func TestRunnerScheduleOncePerCronTimeWithTwoWorkers(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("tick")
		cfg.Schedules = []ScheduleSpec{{Name: "every-second", Cron: "* * * * * *", Queue: "tick", Payload: []byte(`{"n":0}`)}}
		var mu sync.Mutex
		ran := map[time.Time]int{}
		register := func(w *Worker) {
			must(t, Handle(w, "tick", func(_ context.Context, j Job[payload]) error {
				mu.Lock()
				defer mu.Unlock()
				ran[j.ScheduledAt]++
				return nil
			}))
		}
		a := startWorker(t, st, cfg, 1, register)
		b := startWorker(t, st, cfg, 2, register)
		waitFor(t, "three runs", func() bool {
			return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) >= 3
		})
		must(t, a.stop())
		must(t, b.stop())
		for at, n := range ran {
			if n != 1 {
				t.Errorf("the run for %v executed %d times", at, n)
			}
		}
		rows := listJobs(t, st, store.JobFilter{Queue: "tick"})
		seen := map[time.Time]bool{}
		for i, r := range rows {
			if seen[r.ScheduledAt] {
				t.Errorf("two jobs for cron time %v", r.ScheduledAt)
			}
			seen[r.ScheduledAt] = true
			if r.ScheduledAt.Nanosecond() != 0 {
				t.Errorf("job %s scheduled at %v, not a whole second", r.ID, r.ScheduledAt)
			}
			if i > 0 && !r.StartedAt.IsZero() && r.StartedAt.Before(rows[i-1].CompletedAt) {
				t.Errorf("run %v started at %v before the previous run completed at %v", r.ScheduledAt, r.StartedAt, rows[i-1].CompletedAt)
			}
		}
	})
}

// A worker that stops ticking (its process died) is declared dead; its jobs
// are rescued and run again on another worker.
func TestRunnerRescuesDeadWorkersJobs(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("work")
		c := NewClient(st, clockrng.NewRand(3))
		ids, err := EnqueueMany(context.Background(), c, []payload{{1}, {2}, {3}}, WithQueue("work"))
		must(t, err)
		dead, err := engine.NewCore(st, cfg, clockrng.NewRand(9), nil)
		must(t, err)
		doomed := engine.NewPolicy(dead)
		first := doomed.Step(engine.Input{Kind: engine.InStarted})[0]
		res := doomed.Do(context.Background(), first, time.Time{})
		must(t, res.Err)
		if len(res.Start) != 3 {
			t.Fatalf("the doomed worker reserved %d jobs, want 3", len(res.Start))
		}
		// It never ticks again: its jobs stay running until a leader rescues them.
		var ran atomic.Int32
		startWorker(t, st, cfg, 1, func(w *Worker) {
			must(t, Handle(w, "work", func(context.Context, Job[payload]) error { ran.Add(1); return nil }))
		})
		waitFor(t, "the rescued jobs to run", func() bool { return settled(t, st) })
		for _, id := range ids {
			rows := chain(t, st, id)
			if len(rows) != 2 || rows[0].Status != store.Lost || rows[1].Status != store.Completed {
				t.Fatalf("job %s: %+v, want lost then completed", id, rows)
			}
			if want := "worker " + dead.ID().String() + " was declared dead"; rows[0].FailedReason != want {
				t.Errorf("lost reason %q, want %q", rows[0].FailedReason, want)
			}
			if rows[1].StartedBy == dead.ID() {
				t.Errorf("the retry ran on the dead worker")
			}
		}
		if ran.Load() != 3 {
			t.Errorf("%d rescued jobs ran, want 3", ran.Load())
		}
	})
}

// A graceful shutdown with jobs in flight: those that end within the drain
// timeout are recorded; at the deadline the rest are cancelled, those that
// return are recorded, and one that ignores cancellation is released. The
// worker leaves no running job, no lease, and no goroutine.
func TestRunnerGracefulShutdownWithJobsInFlight(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("quick", "cancellable", "stubborn")
		cfg.DrainTimeout = 300 * time.Millisecond
		stopping := make(chan struct{})
		unblock := make(chan struct{})
		var startedN atomic.Int32
		r := startWorker(t, st, cfg, 1, func(w *Worker) {
			must(t, Handle(w, "quick", func(context.Context, Job[payload]) error {
				startedN.Add(1)
				<-stopping
				return nil
			}))
			must(t, Handle(w, "cancellable", func(ctx context.Context, _ Job[payload]) error {
				startedN.Add(1)
				<-ctx.Done()
				return ctx.Err()
			}))
			must(t, Handle(w, "stubborn", func(context.Context, Job[payload]) error {
				startedN.Add(1)
				<-unblock
				return nil
			}))
		})
		c := NewClient(st, clockrng.NewRand(3))
		for _, q := range []string{"quick", "cancellable", "stubborn"} {
			_, err := Enqueue(context.Background(), c, payload{}, WithQueue(q))
			must(t, err)
		}
		waitFor(t, "the three jobs to start", func() bool { return startedN.Load() == 3 })
		waitFor(t, "the worker to hold the lease", func() bool { return !leaseHolder(t, st).IsZero() })
		r.cancel()
		close(stopping)
		waitFor(t, "the stubborn job to be released", func() bool {
			rows := listJobs(t, st, store.JobFilter{Queue: "stubborn"})
			return rows[0].Status == store.Failed
		})
		close(unblock)
		must(t, r.stop())

		if rows := listJobs(t, st, store.JobFilter{Status: store.Running}); len(rows) != 0 {
			t.Fatalf("rows still running after shutdown: %+v", rows)
		}
		if q := listJobs(t, st, store.JobFilter{Queue: "quick"}); q[0].Status != store.Completed {
			t.Errorf("the job that ended during the drain is %s, want completed", q[0].Status)
		}
		cancelled := listJobs(t, st, store.JobFilter{Queue: "cancellable"})
		if cancelled[0].Status != store.Failed || !strings.Contains(cancelled[0].FailedReason, "context canceled") || cancelled[0].NextAttemptID.IsZero() {
			t.Errorf("cancelled job: %+v, want failed with its context error and retried", cancelled[0])
		}
		stubborn := listJobs(t, st, store.JobFilter{Queue: "stubborn"})
		if stubborn[0].FailedReason != engine.ReasonShutdown || stubborn[0].NextAttemptID.IsZero() {
			t.Errorf("stubborn job: %+v, want released with %q and retried", stubborn[0], engine.ReasonShutdown)
		}
		ws := listWorkers(t, st)
		if len(ws) != 1 || ws[0].ShutdownAt.IsZero() {
			t.Errorf("workers after shutdown: %+v, want one, shut down", ws)
		}
		if h := leaseHolder(t, st); !h.IsZero() {
			t.Errorf("lease still held by %s after shutdown", h)
		}
	})
}

// Results of short jobs are recorded, and their slots refilled, while a
// long job runs beside them: collecting finished jobs before a tick waits
// for the others only briefly, never until every job has returned.
func TestRunnerRecordsShortJobsBesideALongOne(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("long", "short")
		cfg.MaxConcurrent, cfg.MaxFetch = 3, 3
		release := make(chan struct{})
		r := startWorker(t, st, cfg, 1, func(w *Worker) {
			must(t, Handle(w, "long", func(context.Context, Job[payload]) error { <-release; return nil }))
			must(t, Handle(w, "short", func(context.Context, Job[payload]) error { return nil }))
		})
		c := NewClient(st, clockrng.NewRand(3))
		_, err := Enqueue(context.Background(), c, payload{}, WithQueue("long"))
		must(t, err)
		waitFor(t, "the long job to start", func() bool { return len(listJobs(t, st, store.JobFilter{Status: store.Running})) == 1 })
		for i := range 10 {
			_, err := Enqueue(context.Background(), c, payload{i}, WithQueue("short"))
			must(t, err)
		}
		waitFor(t, "ten short jobs completed beside the long one", func() bool {
			return len(listJobs(t, st, store.JobFilter{Queue: "short", Status: store.Completed})) == 10
		})
		if long := listJobs(t, st, store.JobFilter{Queue: "long"}); long[0].Status != store.Running {
			t.Fatalf("long job is %s, want still running", long[0].Status)
		}
		close(release)
		must(t, r.stop())
	})
}

// A drain goes on ticking after Run's ctx ended: a job that returns during
// it is recorded at once, not only by the shutdown, also on PostgreSQL,
// whose transactions a cancelled context would refuse (the policy detaches
// every call after the stop, Action.Detached).
func TestRunnerDrainRecordsResultsAfterTheStop(t *testing.T) {
	eachBackend(t, func(t *testing.T, st store.Store) {
		cfg := runnerConfig("quick", "slow")
		cfg.DrainTimeout = time.Minute
		stopping, unblock := make(chan struct{}), make(chan struct{})
		var startedN atomic.Int32
		r := startWorker(t, st, cfg, 1, func(w *Worker) {
			must(t, Handle(w, "quick", func(context.Context, Job[payload]) error {
				startedN.Add(1)
				<-stopping
				return nil
			}))
			must(t, Handle(w, "slow", func(context.Context, Job[payload]) error {
				startedN.Add(1)
				<-unblock
				return nil
			}))
		})
		var once sync.Once
		release := func() { once.Do(func() { close(unblock) }) }
		t.Cleanup(release) // before the worker's cleanup waits for Run
		c := NewClient(st, clockrng.NewRand(3))
		for _, q := range []string{"quick", "slow"} {
			_, err := Enqueue(context.Background(), c, payload{}, WithQueue(q))
			must(t, err)
		}
		waitFor(t, "the two jobs to start", func() bool { return startedN.Load() == 2 })
		r.cancel()
		close(stopping)
		waitFor(t, "the quick job's result while the slow one drains", func() bool {
			return listJobs(t, st, store.JobFilter{Queue: "quick"})[0].Status == store.Completed
		})
		release()
		must(t, r.stop())
	})
}
