package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgbouncertest"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestCancelEndToEnd cancels running webhook jobs with `worker jobs
// cancel` while `worker run` delivers them to a slow server, and sees each
// request cut off: on the cancel's notification, and, through a
// transaction pooler that cannot LISTEN, by the job pass's check. Each
// reports how long the request outlived its cancel's commit (figures, not
// asserted: the bound is tested on a mock clock in package worker).
func TestCancelEndToEnd(t *testing.T) {
	long.Test(t, "builds the binary and runs worker processes")
	bin := buildWorker(t)
	t.Run("OnTheNotification", func(t *testing.T) {
		t.Parallel()
		st := pgtest.OpenWith(t, pg.Options{})
		// No poll in the test's lifetime: only the notification can stop the handler.
		run := cmdArgs([]string{"run"}, dbArgs(t, st.Schema()), append(fastRun, "-poll-interval", "1h")...)
		testCancelStopsWebhooks(t, bin, st, run, "notification")
	})
	t.Run("PollingOnlyThroughAPooler", func(t *testing.T) {
		t.Parallel()
		st := pgtest.OpenWith(t, pg.Options{})
		bouncer := pgbouncertest.Start(t, pgtest.URL(t))
		run := append([]string{"run", "-database-url", bouncer, "-schema", st.Schema(), "-transaction-pooling"},
			append(fastRun, "-poll-interval", "1s")...)
		testCancelStopsWebhooks(t, bin, st, run, `"job pass"`)
	})
}

// cancelRuns is how many jobs each subtest cancels, for its latency figures.
const cancelRuns = 5

// testCancelStopsWebhooks starts `worker run` with run's arguments, then
// cancelRuns times enqueues a webhook to a server that would answer after
// 25 s, cancels the job once its request arrived, and checks that the
// request is cut off, by the way the worker logs as reason, that the
// result is fenced off and that the job is not retried.
func testCancelStopsWebhooks(t *testing.T, bin string, st *pg.Store, run []string, reason string) {
	hook := newSlowHook(t)
	w := startProc(t, bin, "worker run", run...)
	db := dbArgs(t, st.Schema())
	var latencies []time.Duration
	for i := range cancelRuns {
		id := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 1)...)[0]
		hook.awaitArrival(t)
		if i == 0 && reason == "notification" {
			// The first job pass with a job executing asks about it (no
			// check came before); later ones wait a tenth of the hour's
			// poll. Cancelling before that first check would let the
			// check, not the notification, find the cancel.
			w.waitLogLine("msg=cancel-checked")
		}
		out := mustRun(t, bin, cmdArgs([]string{"jobs", "cancel"}, db, id.String())...)
		if want := fmt.Sprintf("job %s cancelled (was running)", id); !strings.Contains(out, want) {
			t.Fatalf("jobs cancel printed %q, want %q", out, want)
		}
		gone := hook.awaitGone(t)
		latencies = append(latencies, gone.Sub(getJob(t, st, id).CancelledAt))
		w.waitLogLine("msg=job-cancelled", "job_id="+id.String(), "reason="+reason)
		w.waitLogLine("msg=result-fenced", "job_id="+id.String())
		if j := getJob(t, st, id); j.Status != store.Cancelled || !j.NextAttemptID.IsZero() {
			t.Fatalf("run %d: cancelled job is %s with next attempt %s; want cancelled, no retry", i, j.Status, formatID(j.NextAttemptID))
		}
	}
	w.signal(syscall.SIGTERM)
	if code := w.wait(); code != exitOK {
		t.Fatalf("worker run exited %d after SIGTERM, want 0", code)
	}
	if n := len(listJobs(t, st)); n != cancelRuns {
		t.Errorf("%d job rows after %d cancelled jobs, want no retries", n, cancelRuns)
	}
	assertDrained(t, st)
	slices.Sort(latencies)
	t.Logf("request cut off after the cancel's commit (by %s), %d runs: min %v, median %v, max %v; all %v",
		reason, len(latencies), latencies[0], latencies[len(latencies)/2], latencies[len(latencies)-1], latencies)
}

// waitLogLine waits until the process has written a log line holding
// every one of parts.
func (p *proc) waitLogLine(parts ...string) {
	p.t.Helper()
	eventually(p.t, fmt.Sprintf("%s logs a line with %q", p.name, parts), func() bool {
		for line := range strings.Lines(p.stderr.String()) {
			if !slices.ContainsFunc(parts, func(part string) bool { return !strings.Contains(line, part) }) {
				return true
			}
		}
		return false
	})
}

// slowHook is a webhook target that answers after 25 s, and reports each
// request's arrival and the moment its client gave it up.
type slowHook struct {
	*httptest.Server
	arrived chan struct{}
	gone    chan time.Time
}

func newSlowHook(t *testing.T) *slowHook {
	h := &slowHook{arrived: make(chan struct{}, cancelRuns), gone: make(chan time.Time, cancelRuns)}
	stop := make(chan struct{})
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			h.gone <- time.Now()
		case <-time.After(25 * time.Second):
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		h.Close()
	})
	return h
}

func (h *slowHook) awaitArrival(t *testing.T) {
	t.Helper()
	select {
	case <-h.arrived:
	case <-time.After(procTimeout):
		t.Fatal("the webhook request did not arrive")
	}
}

// awaitGone returns when the client gave the request up; it fails the
// test if the request outlives the 25 s the server would take to answer.
func (h *slowHook) awaitGone(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-h.gone:
		return at
	case <-time.After(25 * time.Second):
		t.Fatal("the cancelled job's webhook request was not cut off")
	}
	return time.Time{}
}
