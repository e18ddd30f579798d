package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// testLimitAcrossProcesses limits the webhook queue to 3 through the
// binary, lets three workers of 10 slots each run a backlog of slow jobs,
// samples the queue's running rows throughout, and checks that they never
// exceed the limit, that they reach it (else the test could not fail), and
// that every job completes.
func testLimitAcrossProcesses(t *testing.T, bin string) {
	const limit, backlog = 3, 60
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	out := mustRun(t, bin, cmdArgs([]string{"queues", "set-limit"}, db, "webhook", fmt.Sprint(limit))...)
	if want := fmt.Sprintf("queue \"webhook\" limited to %d running jobs\n", limit); out != want {
		t.Errorf("queues set-limit printed %q, want %q", out, want)
	}
	hook := newHoldHook(t, 100*time.Millisecond)
	var workers []*proc
	for _, name := range []string{"worker a", "worker b", "worker c"} {
		workers = append(workers, startProc(t, bin, name, webhookRun(db, 10)...))
	}
	eventually(t, "three workers registered", func() bool { return len(listWorkers(t, st)) == len(workers) })
	stopSampler := startRunningSampler(t, st, "webhook")
	ids := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, backlog)...)
	eventually(t, "a third of the backlog completed", func() bool {
		return countJobs(listJobs(t, st), func(j store.Job) bool { return j.Status == store.Completed }) >= backlog/3
	})
	// The worker that started most jobs so far drains and exits: its
	// running jobs still count against the limit while the others, until
	// now kept out by it, take over.
	busiest := busiestWorker(t, workers, listJobs(t, st))
	stopAll(t, []*proc{busiest})
	eventually(t, "every job of the backlog completed", func() bool {
		for _, id := range ids {
			if lastAttempt(t, st, id).Status != store.Completed {
				return false
			}
		}
		return true
	})
	samples, peak, atLimit := stopSampler()
	stopAll(t, slices.DeleteFunc(workers, func(p *proc) bool { return p == busiest }))
	assertDrained(t, st)
	if peak > limit {
		t.Errorf("%d jobs of the queue ran at once, limit %d", peak, limit)
	}
	if peak < limit {
		t.Errorf("at most %d jobs of the queue ran at once over %d samples: the limit %d was never reached, so the test shows nothing", peak, samples, limit)
	}
	byWorker := startsByWorker(listJobs(t, st))
	if len(byWorker) < 2 {
		t.Errorf("jobs started on %d worker process(es), want at least 2 after %s stopped: %v", len(byWorker), busiest.name, byWorker)
	}
	t.Logf("%d samples of the running jobs: at most %d, %d of them at that; the server saw at most %d requests at once; jobs started per worker %v (%s stopped after %d completed)",
		samples, peak, atLimit, hook.peak(), byWorker, busiest.name, backlog/3)
}

// startsByWorker counts the started jobs of each worker.
func startsByWorker(jobs []store.Job) map[ulid.ULID]int {
	out := map[ulid.ULID]int{}
	for _, j := range jobs {
		if !j.StartedAt.IsZero() {
			out[j.StartedBy]++
		}
	}
	return out
}

// busiestWorker returns the process, among procs, that started the most
// of jobs, recognised by its worker id in its log.
func busiestWorker(t *testing.T, procs []*proc, jobs []store.Job) *proc {
	t.Helper()
	var id ulid.ULID
	starts := startsByWorker(jobs)
	for w, n := range starts {
		if n > starts[id] || n == starts[id] && w.Compare(id) < 0 {
			id = w
		}
	}
	for _, p := range procs {
		if strings.Contains(p.stderr.String(), "worker_id="+id.String()) {
			return p
		}
	}
	t.Fatalf("no process logs worker id %s, which started %d jobs", id, starts[id])
	return nil
}

// lastAttempt returns the newest row of the chain of attempts of job id.
func lastAttempt(t *testing.T, st store.Store, id ulid.ULID) store.Job {
	t.Helper()
	j := getJob(t, st, id)
	for !j.NextAttemptID.IsZero() {
		j = getJob(t, st, j.NextAttemptID)
	}
	return j
}

// holdHook is a webhook target that answers 200 after holding each request
// for a while, and counts how many it holds at once.
type holdHook struct {
	*httptest.Server
	mu             sync.Mutex
	inFlight, most int
}

func newHoldHook(t *testing.T, hold time.Duration) *holdHook {
	h := &holdHook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.inFlight++
		h.most = max(h.most, h.inFlight)
		h.mu.Unlock()
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
		}
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// peak returns the most requests the hook held at once.
func (h *holdHook) peak() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most
}

// startRunningSampler counts the running rows of queue in the database
// over and over until the returned stop is called, which returns how many
// samples it took, the largest count and how many samples saw it.
func startRunningSampler(t *testing.T, st store.Store, queue string) (stop func() (samples, peak, atPeak int)) {
	ctx, cancel := context.WithCancel(context.Background())
	var samples, peak, atPeak int
	var failed error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			var queues []store.QueueStats
			err := st.InTx(ctx, func(tx store.Tx) (err error) { queues, err = tx.ListQueues(ctx); return err })
			if err != nil {
				if ctx.Err() == nil {
					failed = err
				}
				return
			}
			n := 0
			for _, q := range queues {
				if q.Name == queue {
					n = q.Counts[store.Running]
				}
			}
			samples++
			switch {
			case n > peak:
				peak, atPeak = n, 1
			case n == peak:
				atPeak++
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	stopped := false
	stop = func() (int, int, int) {
		if !stopped {
			stopped = true
			cancel()
			<-done
			if failed != nil {
				t.Fatalf("sample the running jobs of queue %q: %v", queue, failed)
			}
		}
		return samples, peak, atPeak
	}
	t.Cleanup(func() { stop() })
	return stop
}
