package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Fix 1: the fetch limit is min(MaxFetch, MaxConcurrent-running), zero when
// full; the original's max never enforced the cap.
func TestReserveTakesMinOfFetchAndFreeSlots(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.MaxConcurrent, cfg.MaxFetch = 3, 5
	c, _ := e.core(cfg, 1)
	e.enqueue("q", 10)

	if got := len(e.tick(c)); got != 3 {
		t.Fatalf("first tick started %d jobs, want 3 (MaxConcurrent)", got)
	}
	reserves := countOps(e.st, "Reserve")
	if got := len(e.tick(c)); got != 0 {
		t.Fatalf("tick with all slots busy started %d jobs, want 0", got)
	}
	if n := countOps(e.st, "Reserve"); n != reserves {
		t.Errorf("a full worker still called Reserve (%d calls, want %d)", n, reserves)
	}
	c.finished(Result{JobID: c.runningIDs()[0], Decision: Succeed})
	if got := len(e.tick(c)); got != 1 {
		t.Fatalf("tick after one job finished started %d jobs, want 1", got)
	}
	if n := len(e.jobs(store.Running)); n != 3 {
		t.Fatalf("%d rows running, want 3", n)
	}

	cfg.MaxConcurrent, cfg.MaxFetch = 10, 2
	c2, _ := e.core(cfg, 2)
	if got := len(e.tick(c2)); got != 2 {
		t.Fatalf("tick with 10 free slots started %d jobs, want 2 (MaxFetch)", got)
	}
}

func countOps(f *faultStore, op string) int {
	n := 0
	for _, ops := range f.log {
		for _, o := range ops {
			if o == op {
				n++
			}
		}
	}
	return n
}

// deadWorker sets up worker a running jobs on "q", then stalling past the
// dead threshold while leader b (queue "other") keeps ticking.
func deadWorker(t *testing.T, cfg Config, jobs int) (e *env, a, b *Core, recA, recB *recorder, started []store.Job) {
	e = newEnv(t)
	other := cfg
	other.Queues = []string{"other"}
	b, recB = e.core(other, 2)
	e.tick(b)
	if !b.isLeader() {
		t.Fatal("b did not become leader")
	}
	a, recA = e.core(cfg, 1)
	e.enqueue("q", jobs)
	started = e.tick(a)
	for range 10 {
		e.advance(30 * time.Second)
		e.tick(b)
	}
	return e, a, b, recA, recB, started
}

// Fix 2: the leader rescues the jobs of dead workers (lost, then retried).
func TestLeaderRescuesJobsOfDeadWorker(t *testing.T) {
	e, a, b, _, recB, started := deadWorker(t, testConfig(), 2)
	if len(started) != 2 {
		t.Fatalf("a started %d jobs, want 2", len(started))
	}
	shut := recB.of(EventDeadWorkersShutDown)
	if len(shut) != 1 || !slices.Equal(shut[0].Workers, []ulid.ULID{a.ID()}) {
		t.Fatalf("dead workers shut down: %v, want one event naming %s", shut, a.ID())
	}
	if n := recB.count(EventJobRescued); n != 2 {
		t.Fatalf("%d jobs rescued, want 2", n)
	}
	for _, r := range recB.of(EventRetryScheduled) {
		old := e.job(r.Job.ID)
		if old.Status != store.Lost || old.NextAttemptID != r.Next.ID {
			t.Errorf("rescued row %s: status %s next %s, want lost pointing at %s", old.ID, old.Status, old.NextAttemptID, r.Next.ID)
		}
		next := e.job(r.Next.ID)
		if next.Attempt != 1 || !next.ScheduledAt.Equal(old.FailedAt.Add(5*time.Second)) {
			t.Errorf("retry %s: attempt %d at %v, want attempt 1 at %v", next.ID, next.Attempt, next.ScheduledAt, old.FailedAt.Add(5*time.Second))
		}
	}
	// Another worker runs the retries once the leader promoted them.
	c, _ := e.core(testConfig(), 3)
	e.advance(10 * time.Second)
	e.tick(b)
	got := e.tick(c)
	if len(got) != 2 || got[0].Attempt != 1 || got[1].Attempt != 1 {
		t.Fatalf("the retries did not run elsewhere: started %v", got)
	}
}

// Fenced results: a's jobs were rescued while it stalled; their results
// are refused, reported and counted, and the worker carries on.
func TestFencedResultIsReportedNotFatal(t *testing.T) {
	e, a, _, recA, _, started := deadWorker(t, testConfig(), 2)
	finishAll(a, Succeed, "")
	e.tick(a) // no error: being fenced is not a failure
	fenced := recA.of(EventResultFenced)
	if len(fenced) != 2 {
		t.Fatalf("%d fenced results, want 2: %v", len(fenced), recA.events)
	}
	for _, j := range started {
		if got := e.job(j.ID); got.Status != store.Lost {
			t.Errorf("fenced result changed row %s to %s, want it left lost", j.ID, got.Status)
		}
	}
}

// Fix 6 (declared dead): the worker drops its leader belief, keeps counting
// the old reservations against its cap, and registers under a new id.
func TestDeclaredDeadWorkerRegistersAgain(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConcurrent = 3
	e, a, _, recA, _, started := deadWorker(t, cfg, 2)
	oldID := a.ID()
	e.enqueue("q", 5)
	got := e.tick(a)
	if a.ID() == oldID || a.ID().IsZero() {
		t.Fatalf("worker id %s after being declared dead, want a new one (old %s)", a.ID(), oldID)
	}
	if recA.count(EventDeclaredDead) != 1 || recA.count(EventRegistered) != 2 {
		t.Fatalf("want one declared-dead and two registered events, got %v", recA.events)
	}
	if len(got) != 1 {
		t.Fatalf("started %d new jobs with 2 old ones still executing, want 1 (cap 3)", len(got))
	}
	if n := len(a.runningIDs()); n != 3 {
		t.Fatalf("Running() has %d jobs, want the 2 old ones and the new one", n)
	}
	if got[0].StartedBy != a.ID() {
		t.Errorf("new job started by %s, want the new id %s", got[0].StartedBy, a.ID())
	}
	// The old jobs end: their results go out under the old id and are fenced.
	a.finished(Result{JobID: started[0].ID, Decision: Succeed})
	a.finished(Result{JobID: started[1].ID, Decision: Retry, Reason: "boom"})
	more := e.tick(a)
	if len(more) != 2 {
		t.Fatalf("after the old jobs ended, started %d jobs, want 2", len(more))
	}
	for _, f := range recA.of(EventResultFenced) {
		if f.Worker != oldID {
			t.Errorf("fenced result reported for worker %s, want the old id %s", f.Worker, oldID)
		}
	}
	if n := recA.count(EventResultFenced); n != 2 {
		t.Fatalf("%d fenced results, want 2", n)
	}
}

// A declared-dead worker that led gives up the belief at once.
func TestDeclaredDeadLeaderDropsLeadership(t *testing.T) {
	e := newEnv(t)
	a, _ := e.core(testConfig(), 1)
	e.tick(a)
	if !a.isLeader() {
		t.Fatal("a did not become leader")
	}
	e.inTx(func(tx store.Tx) error { return tx.ShutdownWorker(e.ctx, a.ID()) })
	e.advance(time.Second)
	e.tick(a)
	if a.isLeader() {
		t.Fatal("a still believes it leads after being declared dead")
	}
}

// Fix 3: duties re-check the lease in their own transaction; a worker
// whose lease lapsed between renewal and duties does nothing.
func TestDutiesRecheckTheLease(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	e.tick(a)
	if rec.count(EventDutiesStarted) != 1 {
		t.Fatalf("a leader with a valid lease did not run duties: %v", rec.events)
	}
	scheduleJob(e, "q", time.Second)
	var other ulid.ULID
	e.inTx(func(tx store.Tx) error {
		other = ulid.Make()
		return tx.RegisterWorker(e.ctx, other)
	})
	e.advance(2 * time.Second)
	base := e.st.n
	e.st.before = func(n int) {
		if n == base+3 { // a's duty transaction: lease, jobs, duties
			e.advance(10 * time.Second)
			e.inTx(func(tx store.Tx) error {
				if _, err := tx.ExpireLease(e.ctx); err != nil {
					return err
				}
				_, err := tx.TryAcquireLease(e.ctx, other, 5*time.Second)
				return err
			})
		}
	}
	e.tick(a)
	if n := rec.count(EventDutiesStarted); n != 1 {
		t.Fatalf("duties ran %d times, want once: the second had lost the lease", n)
	}
	if rec.count(EventLeaseLost) != 1 || a.isLeader() {
		t.Fatalf("a did not notice it lost the lease: leader=%v events %v", a.isLeader(), rec.events)
	}
	if n := len(e.jobs(store.Scheduled)); n != 1 {
		t.Fatalf("%d scheduled jobs, want 1: duties promoted without the lease", n)
	}
}

// scheduleJob inserts a job on q that becomes due after d.
func scheduleJob(e *env, q string, d time.Duration) ulid.ULID {
	e.t.Helper()
	id := ulid.Make()
	e.inTx(func(tx store.Tx) error {
		now, _ := tx.Now(e.ctx)
		_, err := tx.InsertJobs(e.ctx, []store.NewJob{{ID: id, Queue: q, Payload: []byte(`{}`), ScheduledAt: now.Add(d)}})
		return err
	})
	return id
}

// Fix 5: jobs start only after their reservation committed.
func TestJobsStartOnlyAfterCommit(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	e.enqueue("q", 2)
	e.st.failBefore = once(has("Reserve"))
	res, err := a.tick(e.ctx, e.storeNow())
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Tick error = %v, want ErrUnavailable", err)
	}
	if len(res.Start) != 0 || len(a.runningIDs()) != 0 || rec.count(EventJobStarted) != 0 {
		t.Fatalf("jobs handed out from a rolled-back reservation: %v", res.Start)
	}
	if n := len(e.jobs(store.Running)); n != 0 {
		t.Fatalf("%d rows running after the rollback, want 0", n)
	}
	if got := e.tick(a); len(got) != 2 {
		t.Fatalf("next tick started %d jobs, want 2", len(got))
	}
}

// Fix 6 (ambiguous reserve): the reservation committed but the worker saw
// an error; the next tick recovers the jobs so none stays running forever.
func TestReservationWithUnseenCommitIsRecovered(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	want := e.enqueue("q", 2)
	e.st.failAfter = once(has("Reserve"))
	if res, err := a.tick(e.ctx, e.storeNow()); err == nil || len(res.Start) != 0 {
		t.Fatalf("Tick = %v, %v; want an error and nothing started", res.Start, err)
	}
	if n := len(e.jobs(store.Running)); n != 2 {
		t.Fatalf("%d rows running, want the 2 whose commit was not seen", n)
	}
	got := e.tick(a)
	if !slices.Equal(ids(got), want) {
		t.Fatalf("recovered %v, want %v", ids(got), want)
	}
	for _, ev := range rec.of(EventJobStarted) {
		if !strings.Contains(ev.Reason, "recovered") {
			t.Errorf("job-started event without the recovery reason: %v", ev)
		}
	}
	if again := e.tick(a); len(again) != 0 {
		t.Fatalf("a later tick started %v again", ids(again))
	}
}

// Fix 6 (transient errors): an outage fails ticks with backoff, loses no
// result, and the worker recovers when the store does.
func TestStoreOutageBacksOffAndKeepsResults(t *testing.T) {
	e := newEnv(t)
	a, _ := e.core(testConfig(), 1)
	e.enqueue("q", 3)
	e.tick(a)
	finishAll(a, Succeed, "")
	down := true
	e.st.failBefore = func([]string) bool { return down }
	var polls []time.Duration
	for range 4 {
		e.advance(time.Second)
		if _, err := a.tick(e.ctx, e.storeNow()); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Tick during outage: %v, want ErrUnavailable", err)
		}
		polls = append(polls, a.nextPoll())
	}
	if !slices.Equal(polls, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}) {
		t.Fatalf("backoff during outage %v, want 1s 2s 4s 8s", polls)
	}
	down = false
	e.tick(a)
	if a.failing() || a.nextPoll() != time.Second {
		t.Fatalf("after recovery Failing=%v NextPoll=%v, want false and 1s", a.failing(), a.nextPoll())
	}
	if n := len(e.jobs(store.Completed)); n != 3 {
		t.Fatalf("%d jobs completed after the outage, want 3", n)
	}
}

// Fix 6 (ambiguous complete): the repeat of a result whose first commit was
// not seen is fenced; the row changed once and the retry exists once.
func TestResultWithUnseenCommitIsNotAppliedTwice(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	e.enqueue("q", 2)
	jobs := e.tick(a)
	a.finished(Result{JobID: jobs[0].ID, Decision: Succeed})
	a.finished(Result{JobID: jobs[1].ID, Decision: Retry, Reason: "again"})
	// The failure and the success are written by separate transactions;
	// the commit of each is lost once.
	failure, success := once(has("FailJob")), once(has("CompleteJobs"))
	e.st.failAfter = func(ops []string) bool { return failure(ops) || success(ops) }
	for try := 1; try <= 2; try++ {
		if _, err := a.tick(e.ctx, e.storeNow()); err == nil {
			t.Fatalf("tick %d: the injected failure after commit was not reported", try)
		}
	}
	e.tick(a)
	fenced := rec.of(EventResultFenced)
	if len(fenced) != 2 || !strings.Contains(fenced[0].Reason, "not seen") {
		t.Fatalf("repeated results: %v, want 2 fenced with the unseen-commit note", fenced)
	}
	if n := rec.count(EventRetryScheduled); n != 0 {
		t.Fatalf("%d retries reported, want 0: the one that committed was never seen", n)
	}
	if got := e.job(jobs[0].ID).Status; got != store.Completed {
		t.Errorf("job 0 is %s, want completed", got)
	}
	if n := len(e.jobs(store.Scheduled)); n != 1 {
		t.Errorf("%d retry rows, want exactly 1", n)
	}
}

// Fix 9: lease maintenance runs in its own transaction, at most once per
// LeaderInterval, never inside the job path's transaction.
func TestLeaseMaintenanceStaysOffTheJobPath(t *testing.T) {
	e := newEnv(t)
	a, _ := e.core(testConfig(), 1)
	e.enqueue("q", 20)
	for range 10 {
		for _, j := range e.tick(a) {
			a.finished(Result{JobID: j.ID, Decision: Succeed})
		}
	}
	if n := countOps(e.st, "TryAcquireLease"); n != 1 {
		t.Fatalf("10 ticks within LeaderInterval tried the lease %d times, want 1", n)
	}
	e.advance(time.Second)
	e.tick(a)
	if n := countOps(e.st, "TryAcquireLease"); n != 2 {
		t.Fatalf("a tick after LeaderInterval tried the lease %d times in total, want 2", n)
	}
	for _, ops := range e.st.log {
		lease := slices.ContainsFunc(ops, func(o string) bool {
			return o == "TryAcquireLease" || o == "ExpireLease" || o == "LockLeaderDuties"
		})
		job := slices.ContainsFunc(ops, func(o string) bool {
			return o == "Reserve" || o == "CompleteJobs" || o == "Heartbeat"
		})
		if lease && job {
			t.Fatalf("one transaction did lease and job work: %v", ops)
		}
	}
}

// Fix 10: retention deletes old terminal jobs and shut-down workers.
func TestRetentionDeletesOldRows(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	oldJob := e.enqueue("q", 1)[0]
	e.tick(a)
	finishAll(a, Succeed, "")
	e.tick(a)
	gone, _ := e.core(testConfig(), 2)
	e.tick(gone)
	if err := gone.shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.advance(25 * 24 * time.Hour)
	newJob := e.enqueue("q", 1)[0]
	e.tick(a)
	finishAll(a, Succeed, "")
	e.tick(a)
	e.advance(6 * 24 * time.Hour) // old job 31 days, new one 6, gone worker 31
	e.tick(a)
	if rec.count(EventJobsDeleted) != 1 || rec.count(EventWorkersDeleted) != 1 {
		t.Fatalf("retention events: %v", rec.events)
	}
	if left := ids(e.jobs("")); !slices.Equal(left, []ulid.ULID{newJob}) {
		t.Fatalf("jobs left %v, want only the recent %s (old %s deleted)", left, newJob, oldJob)
	}
	if ws := e.workers(); len(ws) != 1 || ws[0].ID != a.ID() {
		t.Fatalf("workers left: %v, want only %s", ws, a.ID())
	}
}

// A sweep through more old jobs than one batch goes on at the next leader
// pass rather than after the cleanup interval, one bounded transaction at
// a time.
func TestRetentionSweepsInBatches(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.CleanupBatch = 300
	old := e.enqueue("q", cfg.CleanupBatch+200)
	e.inTx(func(tx store.Tx) error {
		w := ulid.Make()
		if err := tx.RegisterWorker(e.ctx, w); err != nil {
			return err
		}
		if _, err := tx.Reserve(e.ctx, w, []string{"q"}, len(old)); err != nil {
			return err
		}
		_, err := tx.CompleteJobs(e.ctx, store.Completion{Worker: w, IDs: old})
		return err
	})
	e.advance(31 * 24 * time.Hour)
	a, rec := e.core(cfg, 1)
	e.tick(a)
	e.tick(a) // within LeaderInterval: no duties
	e.advance(cfg.LeaderInterval)
	e.tick(a)
	var counts []int
	for _, ev := range rec.of(EventJobsDeleted) {
		counts = append(counts, ev.Count)
	}
	if !slices.Equal(counts, []int{cfg.CleanupBatch, 200}) || cfg.LeaderInterval >= cfg.CleanupInterval {
		t.Fatalf("deleted %v jobs in successive passes %v apart (cleanup interval %v), want %d then 200",
			counts, cfg.LeaderInterval, cfg.CleanupInterval, cfg.CleanupBatch)
	}
	if got := retentionPasses(rec); !slices.Equal(got, [][2]int{{300, 300}, {300, 200}}) {
		t.Fatalf("duties-ended (batch, deleted) of the passes: %v, want [300 300] then [300 200]", got)
	}
}

// retentionPasses returns the (batch, deleted) of each leader pass rec saw
// end that applied retention.
func retentionPasses(rec *recorder) [][2]int {
	var passes [][2]int
	for _, ev := range rec.of(EventDutiesEnded) {
		if ev.Limit > 0 {
			passes = append(passes, [2]int{ev.Limit, ev.Count})
		}
	}
	return passes
}

// A retention pass that deleted a full batch while the local clock stood
// behind the last cleanup is followed by another when the clock comes
// back: what a full batch owes does not depend on the local clock.
func TestRetentionGoesOnAfterAClockJump(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.CleanupBatch = 300
	a, rec := e.core(cfg, 1)
	local := e.storeNow()
	tickAt := func(at time.Time) {
		t.Helper()
		if _, err := a.tick(e.ctx, at); err != nil {
			t.Fatal(err)
		}
		if err := a.runDuties(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	tickAt(local) // a retention pass with nothing to delete
	old := e.enqueue("q", cfg.CleanupBatch+200)
	e.inTx(func(tx store.Tx) error {
		if _, err := tx.Reserve(e.ctx, a.ID(), []string{"q"}, len(old)); err != nil {
			return err
		}
		_, err := tx.CompleteJobs(e.ctx, store.Completion{Worker: a.ID(), IDs: old})
		return err
	})
	e.advance(31 * 24 * time.Hour)
	tickAt(local.Add(-time.Hour))             // the clock jumped back: due
	tickAt(local.Add(2 * cfg.LeaderInterval)) // back ahead, within the cleanup interval
	if got := retentionPasses(rec); !slices.Equal(got, [][2]int{{300, 0}, {300, 300}, {300, 200}}) {
		t.Fatalf("retention passes (batch, deleted): %v, want [300 0] [300 300] [300 200]", got)
	}
}

// Fix 4: the store is the only time authority; a worker whose local clock
// is years off still leases, schedules and stamps rows in store time.
func TestLocalClockNeverReachesTheStore(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.Schedules = []ScheduleSpec{{Name: "s", Cron: "0 * * * * *", Queue: "q", Payload: []byte(`{}`)}}
	a, rec := e.core(cfg, 1)
	e.advance(1500 * time.Millisecond)
	storeNow := e.storeNow()
	if _, err := a.tick(e.ctx, epoch.AddDate(-7, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := a.runDuties(e.ctx); err != nil {
		t.Fatal(err)
	}
	acq := rec.of(EventLeaseAcquired)
	if len(acq) != 1 || !acq[0].LeaseExpires.Equal(storeNow.Add(5*time.Second)) {
		t.Fatalf("lease events %v, want expiry at store now + 5s = %v", acq, storeNow.Add(5*time.Second))
	}
	fired := rec.of(EventScheduleFired)
	if len(fired) != 1 || !fired[0].CronTime.Equal(epoch.Add(time.Minute)) {
		t.Fatalf("schedule fired %v, want once at %v", fired, epoch.Add(time.Minute))
	}
	if ws := e.workers(); !ws[0].RegisteredAt.Equal(storeNow) {
		t.Fatalf("worker registered at %v, want store time %v", ws[0].RegisteredAt, storeNow)
	}
}

// Recovered jobs are read before the job pass; when that pass fails (it
// may have waited out its deadline, past the dead threshold, while a
// leader rescued them) they are not started on that stale read: the next
// tick reads them again.
func TestRecoveredJobsWaitForAJobPassThatSucceeds(t *testing.T) {
	e := newEnv(t)
	a, _ := e.core(testConfig(), 1)
	want := e.enqueue("q", 2)
	e.st.failAfter = once(has("Reserve"))
	if _, err := a.tick(e.ctx, e.storeNow()); err == nil {
		t.Fatal("the first tick saw no error")
	}
	e.st.failBefore = once(has("Reserve"))
	if res, err := a.tick(e.ctx, e.storeNow()); err == nil || len(res.Start) != 0 {
		t.Fatalf("tick with a failed job pass = %v, %v; want an error and nothing started", ids(res.Start), err)
	}
	if got := e.tick(a); !slices.Equal(ids(got), want) {
		t.Fatalf("the next tick recovered %v, want %v", ids(got), want)
	}
}

// A job pass after a recovery heartbeats even when no heartbeat is due:
// the recovered jobs were read in the transaction before it, and only a
// heartbeat proves that the worker was not declared dead (its jobs
// rescued) in between. Found by the simulator (seed 3428): a pass slowed
// by store latency past the dead threshold, without a heartbeat, handed
// out a recovered job a leader had rescued meanwhile.
func TestJobPassAfterARecoveryHeartbeats(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.HeartbeatInterval, cfg.DeadWorkerThreshold = time.Hour, 2*time.Hour
	a, rec := e.core(cfg, 1)
	e.enqueue("q", 2)
	e.st.failAfter = once(has("Reserve"))
	if _, err := a.tick(e.ctx, e.storeNow()); err == nil {
		t.Fatal("the first tick saw no error")
	}
	before := rec.count(EventHeartbeat)
	e.tick(a)
	if got := rec.count(EventHeartbeat); got != before+1 {
		t.Fatalf("the tick that recovered jobs heartbeat %d times, want once", got-before)
	}
}
