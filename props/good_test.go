package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

var (
	w1, w2, w3, w4 = worker(1), worker(2), worker(3), worker(4)
	none           ulid.ULID // the driver: enqueues and cancellations
)

// setup registers workers 1 and 2 and gives worker 1 the lease.
func setup(b *builder) {
	b.commit(w1, b.register(w1))
	b.commit(w2, b.register(w2))
	b.commit(w1, b.acquire(w1))
}

// fullRun is a history that keeps every promise while it exercises every
// event kind: runs, a retry, a Fail decision, a lease passing on expiry,
// schedule runs, a graceful shutdown, a crash, a dead worker's job rescued
// and retried, and a restarted process registering again.
func fullRun(b *builder) {
	setup(b)
	b.duties(w1, b.scheduleRun(100))
	b.event(ScheduleFired, w1, func(e *Event) { e.Schedule, e.Job, e.CronTime = "tick", job(100), epoch.Add(time.Minute) })
	b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueue(3))
	b.run(1, w1, Succeed, 0)
	b.run(2, w2, Retry, 4) // job 4 due 5 s after the failure
	b.run(3, w2, Fail, 0)

	b.after(4 * time.Second) // w1's lease expired; w2 takes over
	b.reacquire(w2)
	b.duties(w2, b.promote(4))
	b.run(4, w2, Succeed, 0)

	b.after(52 * time.Second) // the schedule's first run is due
	b.commit(w1, b.heartbeat(w1))
	b.reacquire(w2)
	b.duties(w2, b.promote(100))
	b.run(100, w1, Succeed, 0)
	b.duties(w2, b.scheduleRun(101))

	b.event(ShutdownBegan, w1, nil)
	b.commit(w1, b.shutdownWorker(w1))
	b.shutdownDone(w1)

	b.commit(none, b.enqueue(5))
	b.commit(w2, b.reserve(5, w2))
	b.start(5, w2)
	b.event(Crashed, w2, nil)

	b.after(time.Second)
	b.procs[w4] = "p2"
	b.event(Restarted, w4, nil)
	b.commit(w4, b.register(w4))
	b.commit(w3, b.register(w3))

	b.after(2 * time.Minute) // w2 unseen past the threshold
	b.commit(w3, b.heartbeat(w3))
	b.commit(w4, b.heartbeat(w4))
	b.reacquire(w3)
	b.duties(w3, b.shutdownWorker(w2), b.lose(5), b.retry(5, 6, 5*time.Second), b.promote(101))
	b.run(101, w4, Succeed, 0)
	b.after(3 * time.Second)
	b.commit(w3, b.acquire(w3))
	b.after(2 * time.Second)
	b.duties(w3, b.promote(6), b.scheduleRun(102)) // run 101 ended: the next is due
	b.run(6, w3, Succeed, 0)
}

// stalledRun keeps every promise: a worker that stalls past the dead
// threshold is declared dead while its handler still runs; the retry runs
// elsewhere at the same time (allowed: its first worker was declared dead),
// and its late result is fenced off without changing the row.
func stalledRun(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.after(3 * time.Minute)
	b.commit(w2, b.heartbeat(w2))
	b.reacquire(w2)
	b.duties(w2, b.shutdownWorker(w1), b.lose(1), b.retry(1, 2, 5*time.Second))
	b.after(4 * time.Second)
	b.commit(w2, b.acquire(w2))
	b.after(time.Second)
	b.duties(w2, b.promote(2))
	b.commit(w2, b.reserve(2, w2))
	b.start(2, w2)
	b.after(time.Second)
	b.end(1, w1, Succeed)
	b.event(ResultFenced, w1, func(e *Event) { e.Job = job(1) })
	b.event(DeclaredDead, w1, nil)
	b.procs[w3] = "p1"
	b.commit(w3, b.register(w3))
	b.end(2, w2, Succeed)
	b.commit(w2, b.complete(2))
}

// releasedRun keeps every promise: at the drain deadline a handler that
// ignores cancellation is released (failed "worker shut down", retried);
// the retry runs on another worker while the released handler still runs,
// and the process exits with it.
func releasedRun(b *builder) {
	runningOnW2(b)
	b.event(ShutdownBegan, w2, nil)
	b.after(4 * time.Second)
	b.commit(w2, b.fail(1, "worker shut down"), b.retry(1, 2, 5*time.Second))
	b.after(5 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	b.start(2, w1)
	b.commit(w2, b.shutdownWorker(w2))
	b.shutdownDone(w2)
	b.after(time.Second)
	b.end(2, w1, Succeed)
	b.commit(w1, b.complete(2))
}

// runsRetryOnW1 has w1 take the lease again and promote, run and
// complete job 2, the retry of job 1.
func runsRetryOnW1(b *builder) {
	b.reacquire(w1)
	b.duties(w1, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	b.start(2, w1)
	b.end(2, w1, Succeed)
	b.commit(w1, b.complete(2))
}

// abandonedDrainRun cuts a drain short on a second request to stop,
// after a repeat of the first, and ends within the shutdown bound.
func abandonedDrainRun(b *builder) {
	b.params.DrainTimeout, b.params.ShutdownAttempts = 4*time.Second, 5
	b.params.RepeatWindow, b.params.ShutdownBound = time.Second, 10*time.Second
	runningOnW2(b)
	b.event(ShutdownBegan, w2, nil)
	b.event(StopRequested, w2, func(e *Event) { e.Reason = "terminated" })
	b.after(time.Millisecond)
	b.event(StopRequested, w2, func(e *Event) { e.Reason = "terminated" })
	b.after(time.Second)
	b.event(StopRequested, w2, func(e *Event) { e.Reason = "interrupt" })
	b.event(ExecsCancelled, w2, nil)
	b.after(400 * time.Millisecond)
	b.commit(w2, b.fail(1, ReleaseReason), b.retry(1, 2, 5*time.Second), b.shutdownWorker(w2))
	b.shutdownDone(w2)
	b.after(20 * time.Second)
	runsRetryOnW1(b)
}

// exactReleaseRun keeps every promise in a history with exact shutdown
// times: the handlers are cancelled at the drain deadline, the one that
// ignores it is released after the grace, and a later shutdown is given up
// only after every try failed.
func exactReleaseRun(b *builder) {
	b.params.DrainTimeout, b.params.ShutdownAttempts = 4*time.Second, 5
	runningOnW2(b)
	b.event(ShutdownBegan, w2, nil)
	b.after(4 * time.Second)
	b.event(ExecsCancelled, w2, nil)
	b.after(400 * time.Millisecond)
	b.commit(w2, b.fail(1, ReleaseReason), b.retry(1, 2, 5*time.Second))
	b.event(ShutdownAbandoned, w2, func(e *Event) { e.Failures = 5 })
	b.after(5 * time.Second)
	runsRetryOnW1(b)
}

// crashAfterResultRun keeps every promise: a process commits its handler's
// Fail result and crashes before logging the execution's end (a live run
// logs just after the commit), so the row failed for good with no decision
// on record.
func crashAfterResultRun(b *builder) {
	runningOnW2(b)
	b.after(time.Second)
	b.commit(w2, b.fail(1, "HTTP 400"))
	b.event(Crashed, w2, nil)
}

// lateStartRun keeps every promise: a stalled worker starts jobs it had
// reserved after they were rescued (it was declared dead meanwhile) or
// cancelled; the rescued job's retry already runs elsewhere.
func lateStartRun(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1), b.enqueue(3))
	b.commit(w2, b.reserve(1, w2), b.reserve(3, w2))
	b.after(3 * time.Minute)
	b.reacquire(w1)
	b.commit(none, b.setJob(job(3), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
	b.duties(w1, b.shutdownWorker(w2), b.lose(1), b.retry(1, 2, 5*time.Second))
	b.after(5 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	b.start(2, w1)
	b.start(1, w2)
	b.start(3, w2)
	b.after(time.Second)
	b.end(2, w1, Succeed)
	b.commit(w1, b.complete(2))
	b.end(1, w2, Succeed)
	b.end(3, w2, Succeed)
	b.event(ResultFenced, w2, func(e *Event) { e.Job = job(1) })
	b.event(ResultFenced, w2, func(e *Event) { e.Job = job(3) })
}

// exhaustedRun keeps every promise: a job retried up to MaxRetries and then
// abandoned, a job failed by decision, a cancelled job.
func exhaustedRun(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1), b.enqueue(10), b.enqueue(20))
	b.run(1, w1, Retry, 2)
	for n := 2; n <= 3; n++ {
		b.after(b.params.Backoff.Nominal(n - 2))
		b.reacquire(w1)
		b.duties(w1, b.promote(n))
		next := n + 1
		if n == 3 {
			next = 0 // attempt 2 is the last: MaxRetries is 2
		}
		b.run(n, w1, Retry, next)
	}
	b.run(10, w2, Fail, 0)
	b.commit(none, b.setJob(job(20), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
}

// reelectedRun keeps every promise: an expired lease is replaced by a new
// term in one folded change (new elected_at), not a delete and an insert;
// first its own holder is elected again, then another worker, each leading
// under its new term.
func reelectedRun(b *builder) {
	setup(b)
	b.after(6 * time.Second) // w1's lease expired
	b.commit(w1, b.elect(w1))
	b.duties(w1, b.heartbeat(w1))
	b.after(6 * time.Second)
	b.commit(w2, b.elect(w2))
	b.duties(w2, b.heartbeat(w2))
}

func TestGoodHistoriesHaveNoViolations(t *testing.T) {
	for name, build := range map[string]func(*builder){
		"full": fullRun, "stalled": stalledRun, "exhausted": exhaustedRun, "released": releasedRun,
		"late start": lateStartRun, "crash after result": crashAfterResultRun, "re-elected": reelectedRun,
		"exact release":   exactReleaseRun,
		"drain abandoned": abandonedDrainRun,
		"drain bound":     drainBoundRun, "release given up": releaseGivenUpRun,
		"wake-ups": wakeRun,
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				t.Errorf("unexpected violation: %v", v)
			}
		})
	}
}

// TestStepReportsAsItGoes feeds the full run event by event: no step
// reports anything, and the checker's state at the end is clean.
func TestStepReportsAsItGoes(t *testing.T) {
	b := newBuilder()
	fullRun(b)
	c, err := New(b.params)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range b.events {
		if v := c.Step(&e); v != nil {
			t.Fatalf("event %d: %v", i, v)
		}
	}
	if vs := c.Finish(); len(vs) != 0 {
		t.Fatalf("Finish: %v", vs)
	}
	if c.duty != nil {
		t.Errorf("duties left in progress: %v", c.duty)
	}
	for w, jobs := range c.runningBy {
		if len(jobs) != 0 {
			t.Errorf("jobs left running under %s: %v", w, jobs)
		}
	}
}
