package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker/engine"
)

// TestEndToEnd builds the binary once and runs it as separate processes
// against real PostgreSQL, each subtest in a fresh schema.
func TestEndToEnd(t *testing.T) {
	runEndToEnd(t, []e2eCase{
		{"MigrateTwiceConcurrently", testMigrateConcurrently},
		{"EnqueueAndRun", testEnqueueAndRun},
		{"JobsListRetryCancel", testJobsListRetryCancel},
		{"JobsShowAndList", testJobsShowAndList},
		{"OperatorBasics", testOperatorBasics},
		{"EnqueueThroughTheBinary", testEnqueueThroughTheBinary},
		{"NotMigrated", testNotMigrated},
		{"SigtermDrainsJobsInFlight", testSigtermDrains},
		{"DrainTimeoutReleasesJobs", testDrainTimeoutReleases},
		{"SecondSignalAbandonsTheDrain", testSecondSignal},
		{"LeaderKilledFailover", testLeaderKilledFailover},
		{"ConnectionsTerminated", testConnectionsTerminated},
		{"WrongPassword", testWrongPassword},
		{"UnknownDatabase", testUnknownDatabase},
		{"ScheduleThatNeverFires", testScheduleThatNeverFires},
	})
}

// e2eCase is one subtest of an end-to-end test; run gets the built binary.
type e2eCase struct {
	name string
	run  func(t *testing.T, bin string)
}

// runEndToEnd builds the binary once and runs every case as a parallel
// subtest.
func runEndToEnd(t *testing.T, cases []e2eCase) {
	long.Test(t, "builds the binary and runs worker processes")
	bin := buildWorker(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin)
		})
	}
}

// dbArgs are the flags naming the test database and schema.
func dbArgs(t *testing.T, schema string) []string {
	return []string{"-database-url", pgtest.URL(t), "-schema", schema}
}

// cmdArgs joins a subcommand, its database flags and more flags.
func cmdArgs(sub []string, db []string, more ...string) []string {
	return append(append(append([]string(nil), sub...), db...), more...)
}

// fastRun are run's flags for tests: quick polls, leases and retries.
var fastRun = []string{
	"-metrics-addr", "", "-poll-interval", "100ms", "-heartbeat-interval", "200ms",
	"-lease-ttl", "1s", "-dead-threshold", "1500ms", "-retry-delay", "50ms",
	"-webhook-allow-private", "-log-level", "debug",
}

// reserveOne registers a worker in tx and reserves one job of queue
// under it, as the engine does; it returns the worker.
func reserveOne(ctx context.Context, tx store.Tx, queue string) (ulid.ULID, error) {
	w := ulid.Make()
	if err := tx.RegisterWorker(ctx, w); err != nil {
		return w, err
	}
	_, err := tx.Reserve(ctx, w, []string{queue}, 1)
	return w, err
}

func getJob(t *testing.T, st store.Store, id ulid.ULID) store.Job {
	t.Helper()
	var job store.Job
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) {
		job, err = tx.GetJob(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatalf("get job %s: %v", id, err)
	}
	return job
}

func listJobs(t *testing.T, st store.Store) []store.Job {
	t.Helper()
	var jobs []store.Job
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(context.Background(), store.JobFilter{Limit: 1000})
		return err
	})
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	return jobs
}

func listWorkers(t *testing.T, st store.Store) []store.Worker {
	t.Helper()
	var ws []store.Worker
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) {
		ws, err = tx.ListWorkers(context.Background())
		return err
	})
	if err != nil {
		t.Fatalf("list workers: %v", err)
	}
	return ws
}

// lease returns the lease holder, or a zero id when there is no lease.
func lease(t *testing.T, st store.Store) ulid.ULID {
	t.Helper()
	var l store.Lease
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) {
		l, err = tx.GetLease(context.Background())
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return ulid.ULID{}
	}
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	return l.WorkerID
}

// insertJobs stores one job per payload on queue and returns their ids.
func insertJobs(t *testing.T, st store.Store, queue string, payloads ...string) []ulid.ULID {
	t.Helper()
	rnd := clockrng.NewRandFromOS()
	var ids []ulid.ULID
	err := st.InTx(context.Background(), func(tx store.Tx) error {
		now, err := tx.Now(context.Background())
		if err != nil {
			return err
		}
		ids = ids[:0]
		jobs := make([]store.NewJob, len(payloads))
		for i, p := range payloads {
			jobs[i] = store.NewJob{ID: clockrng.NewULID(now, rnd), Queue: queue, Payload: json.RawMessage(p)}
			ids = append(ids, jobs[i].ID)
		}
		_, err = tx.InsertJobs(context.Background(), jobs)
		return err
	})
	if err != nil {
		t.Fatalf("insert jobs: %v", err)
	}
	return ids
}

// webhookPayloads returns n webhook payloads to target, told apart by "n".
func webhookPayloads(target string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"url": %q, "body": {"n": %d}}`, target, i)
	}
	return out
}

// assertDrained checks that nothing runs, no worker is live and nobody
// holds the lease: what a graceful shutdown of every worker must leave.
func assertDrained(t *testing.T, st store.Store) {
	t.Helper()
	for _, j := range listJobs(t, st) {
		if j.Status == store.Running {
			t.Errorf("job %s is still running after the shutdown", j.ID)
		}
	}
	for _, w := range listWorkers(t, st) {
		if w.ShutdownAt.IsZero() {
			t.Errorf("worker %s is not marked shut down", w.ID)
		}
	}
	if holder := lease(t, st); holder != (ulid.ULID{}) {
		t.Errorf("worker %s still holds the lease", holder)
	}
}

func testMigrateConcurrently(t *testing.T, bin string) {
	schema := pgtest.Schema(t)
	args := cmdArgs([]string{"migrate"}, dbArgs(t, schema))
	a := startProc(t, bin, "migrate a", args...)
	b := startProc(t, bin, "migrate b", args...)
	for _, p := range []*proc{a, b} {
		if code := p.wait(); code != 0 {
			t.Fatalf("%s: exit %d; stderr:\n%s", p.name, code, p.stderr.String())
		}
	}
	// One applied the migrations, the other waited and found nothing to do.
	applied := fmt.Sprintf("schema %q: applied migration 0001_init", schema)
	upToDate := fmt.Sprintf("schema %q is up to date at version %d", schema, pg.SchemaVersion())
	if out := a.stdout.String() + b.stdout.String(); strings.Count(out, applied) != 1 || strings.Count(out, upToDate) != 1 {
		t.Errorf("the two migrations printed:\n%s\nwant one %q and one %q", out, applied, upToDate)
	}
	st, err := pg.Open(context.Background(), pgtest.URL(t), pg.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CheckMigrated(context.Background()); err != nil {
		t.Fatalf("after two concurrent migrations: %v", err)
	}
}

var metricsAddrLog = regexp.MustCompile(`serving /metrics, /healthz and /readyz.* addr=(\S+)`)

// opsURL waits until a `worker run` started with -metrics-addr logs the
// address it serves /metrics, /healthz and /readyz on, and returns its URL.
func (p *proc) opsURL() string {
	p.t.Helper()
	p.waitStderr("serving /metrics")
	m := metricsAddrLog.FindStringSubmatch(p.stderr.String())
	if m == nil {
		p.t.Fatalf("no metrics address in the log of %s:\n%s", p.name, p.stderr.String())
	}
	return "http://" + m[1]
}

// bodyHook returns a webhook target that passes on each body it receives,
// closed when t ends.
func bodyHook(t *testing.T) (*httptest.Server, chan string) {
	bodies := make(chan string, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- string(b)
	}))
	t.Cleanup(hook.Close)
	return hook, bodies
}

func testEnqueueAndRun(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	hook, bodies := bodyHook(t)

	payload := fmt.Sprintf(`{"url": %q, "body": {"order": 42}, "headers": {"X-Test": "yes"}}`, hook.URL)
	hookID := ulid.MustParseStrict(strings.TrimSpace(mustRun(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", "webhook", "-payload", payload)...)))
	noopID := ulid.MustParseStrict(strings.TrimSpace(mustRun(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", `{}`)...)))

	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, db, append(fastRun, "-metrics-addr", "127.0.0.1:0")...)...)
	base := w.opsURL()

	if got := <-bodies; got != `{"order":42}` && got != `{"order": 42}` {
		t.Errorf("webhook received %q, want the payload's body", got)
	}
	eventually(t, "both jobs completed", func() bool {
		return getJob(t, st, hookID).Status == store.Completed && getJob(t, st, noopID).Status == store.Completed
	})
	eventually(t, "/readyz answers 200", func() bool { code, _ := get(t, base+"/readyz"); return code == 200 })
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d, want 200", code)
	}
	if _, body := get(t, base+"/metrics"); !strings.Contains(body, "job_process_duration") {
		t.Errorf("/metrics lacks job_process_duration:\n%s", body)
	}

	w.signal(syscall.SIGTERM)
	if code := w.wait(); code != 0 {
		t.Fatalf("worker run exited %d after SIGTERM, want 0", code)
	}
	assertDrained(t, st)
}

func testJobsListRetryCancel(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	toFail := insertJobs(t, st, "noop", `{"k": "fail me"}`)[0]

	// Make toFail a failed job, as a worker would.
	rnd := clockrng.NewRandFromOS()
	workerID := clockrng.NewULID(time.Now(), rnd)
	err := st.InTx(context.Background(), func(tx store.Tx) error {
		ctx := context.Background()
		if err := tx.RegisterWorker(ctx, workerID); err != nil {
			return err
		}
		reserved, err := tx.Reserve(ctx, workerID, []string{"noop"}, 1)
		if err != nil || len(reserved) != 1 || reserved[0].ID != toFail {
			return fmt.Errorf("reserve: %v %v", reserved, err)
		}
		return tx.FailJob(ctx, workerID, toFail, "boom")
	})
	if err != nil {
		t.Fatal(err)
	}
	toCancel := insertJobs(t, st, "noop", `{"k": "cancel me"}`)[0]

	out := mustRun(t, bin, cmdArgs([]string{"jobs", "cancel"}, db, toCancel.String())...)
	if want := fmt.Sprintf("job %s cancelled (was available)", toCancel); !strings.Contains(out, want) {
		t.Errorf("jobs cancel printed %q, want %q", out, want)
	}
	if got := getJob(t, st, toCancel).Status; got != store.Cancelled {
		t.Errorf("cancelled job is %s", got)
	}
	code, _, stderr := runProc(t, bin, cmdArgs([]string{"jobs", "cancel"}, db, toCancel.String())...)
	if code != exitFailure || !strings.Contains(stderr, "already cancelled") {
		t.Errorf("second cancel: exit %d, stderr %q; want 1 and 'already cancelled'", code, stderr)
	}

	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "delete"}, db, toFail.String()+"x")...)
	if code != exitUsage {
		t.Errorf("delete of a malformed id: exit %d, stderr %q; want %d", code, stderr, exitUsage)
	}

	out = mustRun(t, bin, cmdArgs([]string{"jobs", "retry"}, db, toFail.String())...)
	next := ulid.MustParseStrict(strings.TrimSpace(out))
	if old := getJob(t, st, toFail); old.NextAttemptID != next {
		t.Errorf("failed job's next attempt is %s, want %s", old.NextAttemptID, next)
	}
	if j := getJob(t, st, next); j.Attempt != 1 || j.Status != store.Available || string(j.Payload) != `{"k": "fail me"}` {
		t.Errorf("new attempt = attempt %d, %s, payload %s; want attempt 1, available, the same payload", j.Attempt, j.Status, j.Payload)
	}
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "retry"}, db, toFail.String())...)
	if code != exitFailure || !strings.Contains(stderr, "already retried as job "+next.String()) {
		t.Errorf("second retry: exit %d, stderr %q; want 1 naming the next attempt", code, stderr)
	}
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "retry"}, db, next.String())...)
	if code != exitFailure || !strings.Contains(stderr, "is available; only failed or lost jobs can be retried") {
		t.Errorf("retry of an available job: exit %d, stderr %q", code, stderr)
	}
	unknown := clockrng.NewULID(time.Now(), rnd)
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "cancel"}, db, unknown.String())...)
	if code != exitFailure || !strings.Contains(stderr, "not found") {
		t.Errorf("cancel of an unknown job: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "delete"}, db, unknown.String())...)
	if code != exitFailure || !strings.Contains(stderr, "not found") {
		t.Errorf("delete of an unknown job: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"jobs", "delete"}, db, next.String())...)
	if code != exitFailure || !strings.Contains(stderr, "it is available; cancel it first") || getJob(t, st, next).Status != store.Available {
		t.Errorf("delete of an available job: exit %d, stderr %q; want it refused and the job kept", code, stderr)
	}
	out = mustRun(t, bin, cmdArgs([]string{"jobs", "delete"}, db, toCancel.String())...)
	if want := fmt.Sprintf("job %s deleted (was cancelled)", toCancel); !strings.Contains(out, want) {
		t.Errorf("jobs delete printed %q, want %q", out, want)
	}
	err = st.InTx(context.Background(), func(tx store.Tx) error { _, err := tx.GetJob(context.Background(), toCancel); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("reading the deleted job: %v; want not found", err)
	}

	at := time.Date(2100, 1, 2, 3, 4, 5, 0, time.UTC)
	out = mustRun(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", `{}`, "-at", at.Format(time.RFC3339))...)
	if j := getJob(t, st, ulid.MustParseStrict(strings.TrimSpace(out))); j.Status != store.Scheduled || !j.ScheduledAt.Equal(at) {
		t.Errorf("enqueue -at %s stored a %s job for %s", at, j.Status, j.ScheduledAt)
	}

	out = mustRun(t, bin, cmdArgs([]string{"jobs", "list"}, db, "-status", "failed")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], toFail.String()) ||
		!strings.Contains(lines[1], "boom") || !strings.Contains(lines[1], next.String()) {
		t.Errorf("jobs list -status failed printed:\n%s\nwant a header and the failed job with its reason and next attempt", out)
	}
	out = mustRun(t, bin, cmdArgs([]string{"jobs", "list"}, db, "-queue", "noop", "-limit", "2")...)
	if n := strings.Count(strings.TrimSpace(out), "\n"); n != 2 {
		t.Errorf("jobs list -limit 2 printed %d rows:\n%s", n, out)
	}
}

func testNotMigrated(t *testing.T, bin string) {
	db := dbArgs(t, pgtest.Schema(t))
	for _, sub := range [][]string{{"jobs", "list"}, {"run", "-metrics-addr", ""}, {"console", "-addr", "127.0.0.1:0"}} {
		code, _, stderr := runProc(t, bin, cmdArgs(sub, db)...)
		if code != exitFailure || !strings.Contains(stderr, "worker migrate") {
			t.Errorf("worker %s on an empty schema: exit %d, stderr:\n%s\nwant 1 and a hint to run worker migrate", sub, code, stderr)
		}
	}
}

// blockingHook is a webhook target that holds every request until released
// or until the client gives up, and reports each arrival.
type blockingHook struct {
	*httptest.Server
	arrived chan string
	release chan struct{}
	once    sync.Once
}

func newBlockingHook(t *testing.T) *blockingHook {
	h := &blockingHook{arrived: make(chan string, 100), release: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.arrived <- string(b)
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		h.releaseAll()
		h.Close()
	})
	return h
}

func (h *blockingHook) releaseAll() { h.once.Do(func() { close(h.release) }) }

func (h *blockingHook) awaitArrivals(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-h.arrived:
		case <-time.After(procTimeout):
			t.Fatalf("webhook requests did not arrive")
		}
	}
}

func testSigtermDrains(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	hook := newBlockingHook(t)
	ids := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 3)...)
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, dbArgs(t, st.Schema()), append(fastRun, "-drain-timeout", "1m")...)...)
	hook.awaitArrivals(t, 3)
	for _, id := range ids {
		if s := getJob(t, st, id).Status; s != store.Running {
			t.Fatalf("job %s is %s while its webhook is in flight", id, s)
		}
	}
	w.signal(syscall.SIGTERM)
	w.waitStderr("shutting down: draining running jobs")
	hook.releaseAll()
	if code := w.wait(); code != 0 {
		t.Fatalf("worker run exited %d after SIGTERM, want 0", code)
	}
	for _, id := range ids {
		if s := getJob(t, st, id).Status; s != store.Completed {
			t.Errorf("job %s is %s after the drain, want completed", id, s)
		}
	}
	assertDrained(t, st)
}

func testDrainTimeoutReleases(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	hook := newBlockingHook(t) // never released: the webhooks outlive the drain
	ids := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 2)...)
	args := append(fastRun, "-drain-timeout", "200ms", "-retry-delay", "1h")
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, dbArgs(t, st.Schema()), args...)...)
	hook.awaitArrivals(t, 2)
	w.signal(syscall.SIGTERM)
	if code := w.wait(); code != 0 {
		t.Fatalf("worker run exited %d after SIGTERM, want 0", code)
	}
	for _, id := range ids {
		j := getJob(t, st, id)
		if j.Status != store.Failed || j.NextAttemptID == (ulid.ULID{}) {
			t.Errorf("job %s is %s with next attempt %s; want failed with a retry scheduled", id, j.Status, formatID(j.NextAttemptID))
			continue
		}
		if next := getJob(t, st, j.NextAttemptID); next.Status != store.Scheduled {
			t.Errorf("retry of job %s is %s, want scheduled", id, next.Status)
		}
	}
	assertDrained(t, st)
}

// testSecondSignal checks that a second SIGTERM abandons the drain: the
// running job is cut short and released (failed, retried later), the
// worker is marked shut down and gives up its lease, and the process exits
// 1 at once rather than waiting out the drain timeout.
func testSecondSignal(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	hook := newBlockingHook(t) // released only by the test's cleanup
	id := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 1)...)[0]
	args := append(fastRun, "-drain-timeout", "10m", "-retry-delay", "1h")
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, dbArgs(t, st.Schema()), args...)...)
	hook.awaitArrivals(t, 1)
	w.signal(syscall.SIGTERM)
	w.waitStderr("a second signal abandons the drain")
	// The same signal within engine.RepeatWindow is the same request (coreutils'
	// timeout signals the process and its group); an operator's second
	// TERM comes later.
	time.Sleep(engine.RepeatWindow + 100*time.Millisecond)
	w.signal(syscall.SIGTERM)
	// Without the second signal the drain would outlast procTimeout.
	if code := w.wait(); code != exitFailure {
		t.Fatalf("worker run exited %d after a second SIGTERM, want 1 (stopped without a clean drain)", code)
	}
	if !strings.Contains(w.stderr.String(), "abandoning the drain") {
		t.Errorf("no log line says the drain is abandoned:\n%s", w.stderr.String())
	}
	j := getJob(t, st, id)
	if j.Status != store.Failed || j.NextAttemptID == (ulid.ULID{}) || !strings.Contains(j.FailedReason, "worker shut down") {
		t.Fatalf("job is %s, reason %q, next attempt %s; want released: failed as shut down, with a retry", j.Status, j.FailedReason, formatID(j.NextAttemptID))
	}
	if next := getJob(t, st, j.NextAttemptID); next.Status != store.Scheduled {
		t.Errorf("the released job's retry is %s, want scheduled", next.Status)
	}
	assertDrained(t, st)
}

// firstTimeBlocker blocks the first request of each body until the client
// goes away and answers 200 to the next ones.
type firstTimeBlocker struct {
	mu      sync.Mutex
	seen    map[string]int
	blocked chan struct{}
}

func (f *firstTimeBlocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen[string(b)]++
	first := f.seen[string(b)] == 1
	f.mu.Unlock()
	if first {
		f.blocked <- struct{}{}
		<-r.Context().Done()
	}
}

func testLeaderKilledFailover(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	blocker := &firstTimeBlocker{seen: map[string]int{}, blocked: make(chan struct{}, 10)}
	hook := httptest.NewServer(blocker)
	defer hook.Close()
	ids := insertJobs(t, st, "webhook", webhookPayloads(hook.URL, 3)...)

	a := startProc(t, bin, "worker a", cmdArgs([]string{"run"}, db, fastRun...)...)
	for range ids {
		<-blocker.blocked // all three run on a, and hang
	}
	eventually(t, "worker a holds the lease", func() bool {
		ws := listWorkers(t, st)
		return len(ws) == 1 && lease(t, st) == ws[0].ID
	})
	leaderID := listWorkers(t, st)[0].ID

	b := startProc(t, bin, "worker b", cmdArgs([]string{"run"}, db, fastRun...)...)
	eventually(t, "worker b registered", func() bool { return len(listWorkers(t, st)) == 2 })
	a.signal(syscall.SIGKILL)
	a.wait()

	var survivor ulid.ULID
	for _, w := range listWorkers(t, st) {
		if w.ID != leaderID {
			survivor = w.ID
		}
	}
	eventually(t, "worker b took the lease", func() bool { return lease(t, st) == survivor })
	eventually(t, "the killed leader's jobs were rescued and run again on b", func() bool {
		for _, id := range ids {
			j := getJob(t, st, id)
			if j.Status != store.Lost || j.NextAttemptID == (ulid.ULID{}) {
				return false
			}
			if next := getJob(t, st, j.NextAttemptID); next.Status != store.Completed || next.StartedBy != survivor {
				return false
			}
		}
		return true
	})
	for _, w := range listWorkers(t, st) {
		if w.ID == leaderID && w.ShutdownAt.IsZero() {
			t.Errorf("killed worker %s was not declared dead", leaderID)
		}
	}
	b.signal(syscall.SIGTERM)
	if code := b.wait(); code != 0 {
		t.Fatalf("worker b exited %d after SIGTERM, want 0", code)
	}
	assertDrained(t, st)
}

// testConnectionsTerminated kills every database connection of a running
// worker, as a PostgreSQL restart would (restarting the shared server
// would break the other packages' tests running beside this one), and
// checks that it reconnects and goes on processing jobs.
func testConnectionsTerminated(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	app := "tw-e2e-" + st.Schema()
	dbURL := pg.WithParam(pgtest.URL(t), "application_name", app)
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, []string{"-database-url", dbURL, "-schema", st.Schema()}, fastRun...)...)
	first := insertJobs(t, st, "noop", `{"before": true}`)[0]
	eventually(t, "the first job completed", func() bool { return getJob(t, st, first).Status == store.Completed })

	var killed int
	err := st.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) k`, app).Scan(&killed)
	if err != nil {
		t.Fatal(err)
	}
	if killed == 0 {
		t.Fatalf("found no connection of the worker to terminate")
	}
	second := insertJobs(t, st, "noop", `{"after": true}`)[0]
	eventually(t, "the job enqueued after the connections died completed", func() bool {
		return getJob(t, st, second).Status == store.Completed
	})
	w.signal(syscall.SIGTERM)
	if code := w.wait(); code != 0 {
		t.Fatalf("worker run exited %d after SIGTERM, want 0", code)
	}
	assertDrained(t, st)
}

func testWrongPassword(t *testing.T, bin string) {
	addr, passwords := fakeAuthServer(t)
	dbURL := fmt.Sprintf("postgres://tick:%s@%s/queue?sslmode=disable", secretPassword, addr)
	for _, sub := range [][]string{{"migrate"}, {"run", "-metrics-addr", ""}, {"jobs", "list"}} {
		code, stdout, stderr := runProc(t, bin, cmdArgs(sub, []string{"-database-url", dbURL})...)
		if code != exitFailure {
			t.Errorf("worker %s: exit %d, want 1; stderr:\n%s", sub, code, stderr)
		}
		for _, want := range []string{`database "queue" on ` + addr + ` as user "tick"`, "password authentication failed"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("worker %s: stderr lacks %q:\n%s", sub, want, stderr)
			}
		}
		if strings.Contains(stdout+stderr, secretPassword) {
			t.Errorf("worker %s printed the password:\n%s%s", sub, stdout, stderr)
		}
	}
	if n := len(passwords()); n != 3 {
		t.Errorf("the server saw %d logins, want 3 (one per command, no retry of a refused password)", n)
	}
}

func testUnknownDatabase(t *testing.T, bin string) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), secretPassword)
	u.Path = "/no_such_database_for_tickwork"
	code, stdout, stderr := runProc(t, bin, "migrate", "-database-url", u.String())
	if code != exitFailure || !strings.Contains(stderr, `"no_such_database_for_tickwork" does not exist`) {
		t.Errorf("migrate on an unknown database: exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(stdout+stderr, secretPassword) {
		t.Errorf("output shows the password:\n%s%s", stdout, stderr)
	}
}
