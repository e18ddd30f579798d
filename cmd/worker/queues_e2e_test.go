package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestQueuesEndToEnd drives the queue controls through the binary while
// worker processes run jobs of the queue, and checks in the database what
// they promise: no job of a paused queue starts after the pause commits,
// a limit holds across every process, and a resume or a raised limit
// starts waiting jobs at once.
func TestQueuesEndToEnd(t *testing.T) {
	runEndToEnd(t, []e2eCase{
		{"PauseUnderLoad", testPauseUnderLoad},
		{"LimitAcrossProcesses", testLimitAcrossProcesses},
		{"ControlsWakeWorkers", testControlsWakeWorkers},
	})
}

// webhookRun are the flags of `worker run` processing only the webhook
// queue, concurrency jobs at a time. None of its tests kills a worker, so
// a worker is declared dead only after 10 s without a heartbeat: with
// fastRun's 1.5 s, PostgreSQL starved for 3 s by the other packages'
// million-row fixtures once had a held job rescued under its worker.
func webhookRun(db []string, concurrency int) []string {
	return cmdArgs([]string{"run"}, db, append(fastRun, "-queues", "webhook", "-concurrency", fmt.Sprint(concurrency), "-dead-threshold", "10s")...)
}

// testPauseUnderLoad pauses the webhook queue through the binary while two
// workers process a stream of its jobs and three of them are held running,
// and checks that no job starts after the pause committed although the
// workers have free slots and the stream goes on, that enqueueing through
// the binary still stores available rows, that the held jobs complete, and
// that after a resume the backlog drains.
func testPauseUnderLoad(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	quick, held := newHoldHook(t, 20*time.Millisecond), newBlockingHook(t)
	feed := func() { insertJobs(t, st, "webhook", webhookPayloads(quick.URL, 1)...) }
	workers := []*proc{startProc(t, bin, "worker a", webhookRun(db, 10)...), startProc(t, bin, "worker b", webhookRun(db, 10)...)}
	eventually(t, "the workers completed 20 jobs of the stream", func() bool {
		feed()
		return countJobs(listJobs(t, st), func(j store.Job) bool { return j.Status == store.Completed }) >= 20
	})
	heldIDs := insertJobs(t, st, "webhook", webhookPayloads(held.URL, 3)...)
	held.awaitArrivals(t, len(heldIDs))

	pause := startProc(t, bin, "worker queues pause", cmdArgs([]string{"queues", "pause"}, db, "webhook")...)
	eventually(t, "queues pause exited", func() bool { feed(); return pause.exited() })
	if out := pause.stdout.String(); pause.code != exitOK || out != "queue \"webhook\" paused\n" {
		t.Fatalf("queues pause: exit %d, stdout %q, stderr:\n%s", pause.code, out, pause.stderr.String())
	}
	// Read after the pause committed: every reservation that begins later reads the pause.
	paused := dbNow(t, st)
	var enqueued []ulid.ULID
	for range 3 {
		out := mustRun(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", "webhook", "-payload", webhookPayloads(quick.URL, 1)[0])...)
		enqueued = append(enqueued, ulid.MustParseStrict(strings.TrimSpace(out)))
	}
	// 1.5 s is 15 poll intervals of each worker, each with 17 free slots;
	// and at least 5 jobs fed, however slowly a loaded machine feeds them.
	fed := 0
	eventually(t, "the stream went on for 1.5 s of database time and 5 jobs after the pause", func() bool {
		feed()
		fed++
		return fed >= 5 && dbNow(t, st).Sub(paused) >= 1500*time.Millisecond
	})
	jobs := listJobs(t, st)
	assertNoneStartedSince(t, jobs, paused)
	for _, id := range enqueued {
		if j := getJob(t, st, id); j.Status != store.Available || j.Queue != "webhook" {
			t.Errorf("job %s enqueued into the paused queue is %s on %q, want available on webhook", id, j.Status, j.Queue)
		}
	}
	waiting := countJobs(jobs, func(j store.Job) bool { return j.Status == store.Available && j.CreatedAt.After(paused) })
	if waiting < 5 {
		t.Fatalf("%d available jobs enqueued after the pause; the stream stalled and the test shows nothing", waiting)
	}
	for _, id := range heldIDs {
		if j := getJob(t, st, id); j.Status != store.Running {
			t.Fatalf("held job %s is %s while its webhook is in flight, want running", id, j.Status)
		}
	}
	held.releaseAll()
	eventually(t, "the jobs running across the pause completed", func() bool {
		return countJobs(listJobs(t, st), func(j store.Job) bool { return j.Status == store.Running }) == 0
	})
	for _, id := range heldIDs {
		if j := getJob(t, st, id); j.Status != store.Completed || !j.CompletedAt.After(paused) {
			t.Errorf("held job %s is %s (completed at %s) after its webhook answered; want completed after the pause at %s", id, j.Status, j.CompletedAt, paused)
		}
	}
	assertNoneStartedSince(t, listJobs(t, st), paused)

	if out := mustRun(t, bin, cmdArgs([]string{"queues", "resume"}, db, "webhook")...); out != "queue \"webhook\" resumed\n" {
		t.Errorf("queues resume printed %q", out)
	}
	eventually(t, "the backlog drained after the resume", func() bool {
		return countJobs(listJobs(t, st), func(j store.Job) bool { return j.Status != store.Completed }) == 0
	})
	t.Logf("%d jobs in all, %d of them enqueued during the pause", len(listJobs(t, st)), waiting)
	stopAll(t, workers)
	assertDrained(t, st)
}

// testControlsWakeWorkers checks that a raised limit and a resume start
// waiting jobs at once on a worker that waits on notifications, its polls
// an hour apart and no held webhook timing out to wake it: no row of the
// waiting jobs changes, so the controls themselves notify (they once did
// not, and the jobs waited for the next poll).
func testControlsWakeWorkers(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	hook := newBlockingHook(t)
	mustRun(t, bin, cmdArgs([]string{"queues", "set-limit"}, db, "webhook", "1")...)
	w := startProc(t, bin, "worker run", append(webhookRun(db, 10), "-poll-interval", "1h", "-webhook-timeout", "10m", "-metrics-addr", "127.0.0.1:0")...)
	ops := w.opsURL()
	insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 2)...)
	hook.awaitArrivals(t, 1) // the limit keeps the other waiting
	mustRun(t, bin, cmdArgs([]string{"queues", "set-limit"}, db, "webhook", "2")...)
	hook.awaitArrivals(t, 1)

	// The third job's notification wakes the worker (two of its ten slots
	// are busy) while the limit is full, so that only the resume can start
	// it.
	woken := notificationWakeups(t, ops)
	third := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 1)...)[0]
	eventually(t, "the worker woke on the third job's notification", func() bool { return notificationWakeups(t, ops) > woken })
	mustRun(t, bin, cmdArgs([]string{"queues", "pause"}, db, "webhook")...)
	mustRun(t, bin, cmdArgs([]string{"queues", "set-limit"}, db, "webhook", "3")...) // paused: wakes nobody
	if j := getJob(t, st, third); j.Status != store.Available {
		t.Fatalf("the third job is %s before the resume, want available", j.Status)
	}
	mustRun(t, bin, cmdArgs([]string{"queues", "resume"}, db, "webhook")...)
	hook.awaitArrivals(t, 1)
	hook.releaseAll()
	eventually(t, "the three jobs completed", func() bool {
		return countJobs(listJobs(t, st), func(j store.Job) bool { return j.Status == store.Completed }) == 3
	})
	stopAll(t, []*proc{w})
	assertDrained(t, st)
}

// notificationWakeups reads from a worker's /metrics how many times a
// notification woke it.
func notificationWakeups(t *testing.T, ops string) int {
	t.Helper()
	_, body := get(t, ops+"/metrics")
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "job_worker_wakeups_total{") && strings.Contains(line, `reason="notification"`) {
			var n int
			if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &n); err != nil {
				t.Fatalf("read the wakeups in %q: %v", line, err)
			}
			return n
		}
	}
	return 0
}

// assertNoneStartedSince fails the test if a job started at or after
// since, naming the first few.
func assertNoneStartedSince(t *testing.T, jobs []store.Job, since time.Time) {
	t.Helper()
	var late []string
	for _, j := range jobs {
		if !j.StartedAt.IsZero() && !j.StartedAt.Before(since) {
			late = append(late, fmt.Sprintf("%s at %s (%s)", j.ID, j.StartedAt, j.Status))
		}
	}
	if len(late) > 0 {
		t.Errorf("%d jobs of the paused queue started after the pause committed (by %s), among them: %s",
			len(late), since, strings.Join(late[:min(3, len(late))], ", "))
	}
}

func countJobs(jobs []store.Job, match func(store.Job) bool) int {
	n := 0
	for _, j := range jobs {
		if match(j) {
			n++
		}
	}
	return n
}

// dbNow returns the database's time, read in a transaction of its own.
func dbNow(t *testing.T, st store.Store) time.Time {
	t.Helper()
	var now time.Time
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) {
		now, err = tx.Now(context.Background())
		return err
	})
	if err != nil {
		t.Fatalf("read the database time: %v", err)
	}
	return now
}
