package props

import (
	"strings"
	"testing"
	"time"
)

// violationCase builds a history that breaks one promise; build returns the
// index of the event that must be reported first (len(events) for a
// liveness violation found by Finish).
type violationCase struct {
	name  string
	want  Property
	text  string // a fragment the message must contain
	build func(b *builder) int
}

// atNext runs fn and returns the index of the first event it emitted.
func atNext(b *builder, fn func()) int {
	i := b.next()
	fn()
	return i
}

// atEnd finishes the history: the violation is found by Finish.
func atEnd(b *builder) int { return b.next() }

func TestViolations(t *testing.T) {
	var cases []violationCase
	cases = append(cases, leaderCases...)
	cases = append(cases, retryCases...)
	cases = append(cases, shutdownCases...)
	cases = append(cases, livenessCases...)
	cases = append(cases, capCases...)
	cases = append(cases, singleExecutionCases...)
	cases = append(cases, scheduleCases...)
	cases = append(cases, wellFormedCases...)
	cases = append(cases, uniqueCases...)
	cases = append(cases, outputCases...)
	cases = append(cases, encryptedCases...)
	cases = append(cases, queueRemovalCases...)
	cases = append(cases, queueCases...)
	cases = append(cases, cancelCases...)
	cases = append(cases, vacuumCases...)
	cases = append(cases, policyCases...)
	cases = append(cases, snoozeCases...)
	cases = append(cases, scheduleKeyCases...)
	cases = append(cases, drainCases...)
	cases = append(cases, wakeCases...)
	cases = append(cases, wakePassCases...)
	cases = append(cases, keyCases...)
	cases = append(cases, sequenceViolationCases...)
	cases = append(cases, dependencyCases...)
	cases = append(cases, batchCases...)
	cases = append(cases, deadLetterCases...)
	cases = append(cases, bulkCases...)
	cases = append(cases, queueHistoryCases...)
	cases = append(cases, retentionCases...)
	cases = append(cases, passCompleteCases...)
	cases = append(cases, heartbeatCases...)
	cases = append(cases, leaseCadenceCases...)
	for _, tc := range cases {
		t.Run(tc.want.String()+"/"+tc.name, func(t *testing.T) {
			b := newBuilder()
			at := tc.build(b)
			vs := mustCheck(t, b.history())
			if len(vs) == 0 {
				t.Fatalf("no violation; want property %v at event %d", tc.want, at)
			}
			v := vs[0]
			if v.Property != tc.want || v.Index != at || !strings.Contains(v.Message, tc.text) {
				t.Fatalf("first violation:\n%v\nwant property %v at event %d, message containing %q", v, tc.want, at, tc.text)
			}
			if at < len(b.events) && (v.Seq != b.events[at].Seq || !v.Time.Equal(b.events[at].Time)) {
				t.Errorf("violation stamped seq %d %v, want the event's seq %d %v", v.Seq, v.Time, b.events[at].Seq, b.events[at].Time)
			}
		})
	}
}

var leaderCases = []violationCase{
	{"lease passed on before expiry", LeaderUniqueness, "before it expired", func(b *builder) int {
		setup(b)
		b.after(time.Second)
		return atNext(b, func() {
			b.commit(w2, b.setLease(&LeaseRow{Holder: w2, ElectedAt: b.now, ExpiresAt: b.now.Add(5 * time.Second)}))
		})
	}},
	{"second lease row", LeaderUniqueness, "second lease", func(b *builder) int {
		setup(b)
		l := LeaseRow{Holder: w2, ElectedAt: b.now, ExpiresAt: b.now.Add(5 * time.Second)}
		return atNext(b, func() {
			b.commit(w2, func(e *Event) { e.Leases = append(e.Leases, LeaseChange{After: &l}) })
		})
	}},
	{"renewed after expiry", LeaderUniqueness, "renewed its lease after it expired", func(b *builder) int {
		setup(b)
		b.after(6 * time.Second)
		return atNext(b, func() { b.commit(w1, b.acquire(w1)) })
	}},
	{"lease longer than the TTL", LeaderUniqueness, "more than the TTL", func(b *builder) int {
		setup(b)
		return atNext(b, func() {
			b.commit(w1, b.setLease(&LeaseRow{Holder: w1, ElectedAt: b.now, ExpiresAt: b.now.Add(time.Minute)}))
		})
	}},
	{"lease deleted by another worker", LeaderUniqueness, "deleted the lease", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.commit(w2, b.setLease(nil)) })
	}},
	{"lease granted to a shut-down worker", LeaderUniqueness, "was shut down", func(b *builder) int {
		setup(b)
		b.commit(w2, b.shutdownWorker(w2))
		b.after(6 * time.Second)
		return atNext(b, func() { b.reacquire(w2) })
	}},
	{"duties under an expired lease", LeaderUniqueness, "began leader duties without", func(b *builder) int {
		setup(b)
		b.after(5 * time.Second) // expires_at == now: expired
		return atNext(b, func() { b.duties(w1) })
	}},
	{"duties by a worker without the lease", LeaderUniqueness, "began leader duties without", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.duties(w2) })
	}},
	{"leader-only commit without the lease", LeaderUniqueness, "promoted job", func(b *builder) int {
		setup(b)
		b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Scheduled, CreatedAt: b.now, ScheduledAt: b.now.Add(time.Second)}))
		b.after(time.Second)
		return atNext(b, func() { b.commit(w2, b.promote(1)) })
	}},
	{"overlapping duties", LeaderUniqueness, "in progress", func(b *builder) int {
		setup(b)
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.event(DutiesStarted, w1, nil) })
	}},
}

// retriedTwice runs job 1 and its retry 2 to failure and leaves attempt 2
// (job 3) ended with a Retry decision on worker 1, its result not recorded.
func retriedTwice(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.run(1, w1, Retry, 2)
	b.after(5 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(2))
	b.run(2, w1, Retry, 3)
	b.after(10 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(3))
	b.commit(w1, b.reserve(3, w1))
	b.start(3, w1)
	b.after(time.Second)
	b.end(3, w1, Retry)
}

// failedOnce leaves job 1 ended with a Retry decision on worker 1, its
// result not recorded.
func failedOnce(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.after(time.Second)
	b.end(1, w1, Retry)
}

var retryCases = []violationCase{
	{"retry beyond MaxRetries", RetryBounds, "beyond MaxRetries 2", func(b *builder) int {
		retriedTwice(b)
		return atNext(b, func() { b.commit(w1, b.fail(3, "again"), b.retry(3, 4, 20*time.Second)) })
	}},
	{"retry delay too short", RetryBounds, "outside the policy", func(b *builder) int {
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 4*time.Second)) })
	}},
	{"retry due before its failure", RetryBounds, "before its failure", func(b *builder) int {
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, -292*365*24*time.Hour)) })
	}},
	{"retry delay too long", RetryBounds, "outside the policy", func(b *builder) int {
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 6*time.Second)) })
	}},
	{"retry scheduled in a later transaction", RetryBounds, "no next attempt in that transaction", func(b *builder) int {
		failedOnce(b)
		i := atNext(b, func() { b.commit(w1, b.fail(1, "again")) })
		b.after(time.Second)
		b.commit(w1, b.retry(1, 2, 5*time.Second))
		return i
	}},
	{"retry without a logged decision delayed wrong", RetryBounds, "outside the policy", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.commit(w1, b.fail(1, "again"))
		b.after(time.Second)
		return atNext(b, func() { b.commit(w1, b.retry(1, 2, 5*time.Second)) })
	}},
	{"Fail decision retried", RetryBounds, "failed it for good", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		b.end(1, w1, Fail)
		return atNext(b, func() { b.commit(w1, b.fail(1, "no"), b.retry(1, 2, 5*time.Second)) })
	}},
	{"panic not retried", RetryBounds, "want retry", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		return atNext(b, func() {
			b.event(ExecEnded, w1, func(e *Event) { e.Job, e.Decision, e.Reason = job(1), Fail, PanicReason+"boom" })
		})
	}},
	{"retry numbered wrong", RetryBounds, "is numbered 2", func(b *builder) int {
		failedOnce(b)
		return atNext(b, func() {
			b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second), b.setJob(job(2), func(r *JobRow) { r.Attempt = 2 }))
		})
	}},
	{"attempt inserted without a link", RetryBounds, "without a previous attempt", func(b *builder) int {
		setup(b)
		return atNext(b, func() {
			b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, Attempt: 1, CreatedAt: b.now, ScheduledAt: b.now}))
		})
	}},
	{"second next attempt", RetryBounds, "second next attempt", func(b *builder) int {
		failedOnce(b)
		b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second))
		return atNext(b, func() { b.commit(w1, b.setJob(job(1), func(r *JobRow) { r.NextAttemptID = job(3) })) })
	}},
	{"promoted early", RetryBounds, "before its scheduled_at", func(b *builder) int {
		failedOnce(b)
		b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second))
		b.after(4 * time.Second)
		b.reacquire(w1)
		return atNext(b, func() { b.duties(w1, b.promote(2)) }) + 1
	}},
	{"started before scheduled_at", RetryBounds, "before its scheduled_at", func(b *builder) int {
		setup(b)
		b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now.Add(time.Minute)}))
		return atNext(b, func() { b.commit(w1, b.reserve(1, w1)) })
	}},
}

// drainingW2 has w2 run job 1 and begin a graceful shutdown, in a history
// whose shutdown times are exact (drain timeout 10 s, 5 shutdown tries).
func drainingW2(b *builder) {
	b.params.DrainTimeout, b.params.ShutdownAttempts = 10*time.Second, 5
	runningOnW2(b)
	b.event(ShutdownBegan, w2, nil)
}

var shutdownCases = []violationCase{
	{"handlers cancelled before the drain timeout", ShutdownDraining, "cancelled its handlers 1s after", func(b *builder) int {
		drainingW2(b)
		b.after(time.Second)
		return atNext(b, func() { b.event(ExecsCancelled, w2, nil) })
	}},
	{"released before the drain timeout", ShutdownDraining, "released job", func(b *builder) int {
		drainingW2(b)
		b.after(time.Second)
		return atNext(b, func() { b.commit(w2, b.fail(1, ReleaseReason)) })
	}},
	{"released without cancelling", ShutdownDraining, "without cancelling its handler's context", func(b *builder) int {
		drainingW2(b)
		b.after(11 * time.Second)
		return atNext(b, func() { b.commit(w2, b.fail(1, ReleaseReason)) })
	}},
	{"drain cut short on a repeated signal", OneStopRequest, "repeated within 1s", func(b *builder) int {
		b.params.RepeatWindow = time.Second
		drainingW2(b)
		b.event(StopRequested, w2, func(e *Event) { e.Reason = "terminated" })
		b.after(time.Millisecond)
		b.event(StopRequested, w2, func(e *Event) { e.Reason = "terminated" })
		b.after(time.Millisecond)
		return atNext(b, func() { b.event(ExecsCancelled, w2, nil) })
	}},
	{"shutdown past its bound", ShutdownBound, "shutting down for 1m0.001s", func(b *builder) int {
		b.params.ShutdownBound = time.Minute
		drainingW2(b)
		b.event(Stalled, w2, nil)
		b.after(30 * time.Second)
		b.event(Resumed, w2, nil) // the stall does not count
		b.after(time.Minute + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(2)) })
	}},
	{"shutdown given up too soon", ShutdownDraining, "after 1 failed tries, fewer than the 5", func(b *builder) int {
		drainingW2(b)
		return atNext(b, func() { b.event(ShutdownAbandoned, w2, func(e *Event) { e.Failures = 1 }) })
	}},
	{"job still running", ShutdownDraining, "store still lists 1 jobs running", func(b *builder) int {
		runningOnW2(b)
		b.event(ShutdownBegan, w2, nil)
		b.commit(w2, b.shutdownWorker(w2))
		return atNext(b, func() { b.shutdownDone(w2) })
	}},
	{"running row the driver did not report", ShutdownDraining, "have no result", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w2, b.reserve(1, w2)) // reserved, never started: still the worker's
		b.event(ShutdownBegan, w2, nil)
		b.commit(w2, b.shutdownWorker(w2))
		return atNext(b, func() { b.event(ShutdownCompleted, w2, nil) })
	}},
	{"lease kept", ShutdownDraining, "still holds the lease", func(b *builder) int {
		setup(b)
		b.event(ShutdownBegan, w1, nil)
		b.commit(w1, b.shutdownWorker(w1))
		return atNext(b, func() { b.shutdownDone(w1) })
	}},
	{"worker row not shut down", ShutdownDraining, "not marked shut down", func(b *builder) int {
		setup(b)
		b.event(ShutdownBegan, w2, nil)
		return atNext(b, func() { b.shutdownDone(w2) })
	}},
	{"reserved after shutdown began", ShutdownDraining, "after its graceful shutdown began", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.event(ShutdownBegan, w2, nil)
		return atNext(b, func() { b.commit(w2, b.reserve(1, w2)) })
	}},
}

var livenessCases = []violationCase{
	{"available at the end", NoLostJobs, "still available", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		return atEnd(b)
	}},
	{"running at the end", NoLostJobs, "still running", func(b *builder) int {
		failedOnce(b)
		return atEnd(b)
	}},
	{"retry decision without retry", RetryBounds, "no next attempt in that transaction", func(b *builder) int {
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again")) })
	}},
	{"lost without retry", NoLostJobs, "ended lost", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w2, b.reserve(1, w2))
		b.after(3 * time.Minute)
		b.reacquire(w1)
		b.duties(w1, b.shutdownWorker(w2), b.lose(1))
		return atEnd(b)
	}},
	{"crash before the result", NoLostJobs, "handler decision: none", func(b *builder) int {
		// The row failed after the crash (by a commit of unknown origin,
		// as a live run's rows show it), so the crash cannot have cut a
		// decision's log line short.
		runningOnW2(b)
		b.event(Crashed, w2, nil)
		b.commit(none, b.fail(1, "HTTP 400"))
		return atEnd(b)
	}},
	{"released without retry", NoLostJobs, "handler decision: none", func(b *builder) int {
		runningOnW2(b)
		b.event(ShutdownBegan, w2, nil)
		b.commit(w2, b.fail(1, "worker shut down"), b.shutdownWorker(w2))
		b.shutdownDone(w2)
		return atEnd(b)
	}},
}

var capCases = []violationCase{
	{"third job at once", ConcurrencyCap, "3 jobs at once", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueue(3))
		b.commit(w1, b.reserve(1, w1), b.reserve(2, w1), b.reserve(3, w1))
		b.start(1, w1)
		b.start(2, w1)
		return atNext(b, func() { b.start(3, w1) })
	}},
	{"old registration's jobs count", ConcurrencyCap, "3 jobs at once", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueue(3))
		b.commit(w2, b.reserve(1, w2), b.reserve(2, w2))
		b.start(1, w2)
		b.start(2, w2)
		b.after(3 * time.Minute)
		b.reacquire(w1)
		b.duties(w1, b.shutdownWorker(w2), b.lose(1), b.lose(2))
		b.event(DeclaredDead, w2, nil)
		b.procs[w4] = "p2" // the same process registers again
		b.commit(w4, b.register(w4))
		b.commit(w4, b.reserve(3, w4))
		return atNext(b, func() { b.start(3, w4) })
	}},
}
