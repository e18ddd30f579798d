package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
)

// The retry policies: a queue's own bound and backoff, a job's
// own bound (property 2), snoozes (property 15) and schedules' unique keys
// (property 7).

// snooze ends job n's run as snoozed and inserts its next row m, the same
// attempt with one more snooze, due wait from now.
func (b *builder) snooze(n, m int, wait time.Duration) change {
	prev := b.jobs[job(n)]
	end := b.setJob(job(n), func(r *JobRow) { r.Status, r.CompletedAt, r.NextAttemptID = Snoozed, b.now, job(m) })
	ins := b.insertJob(JobRow{ID: job(m), Queue: prev.Queue, Status: Scheduled, Attempt: prev.Attempt, CreatedAt: b.now,
		ScheduledAt: b.now.Add(wait), ScheduleName: prev.ScheduleName, MaxAttempts: prev.MaxAttempts, Snoozes: prev.Snoozes + 1})
	return func(e *Event) { ins(e); end(e) }
}

// endSnooze logs that job n's handler on w returned Snooze(wait).
func (b *builder) endSnooze(n int, w ulid.ULID, wait time.Duration) {
	b.event(ExecEnded, w, func(e *Event) { e.Job, e.Decision, e.Snooze = job(n), Snooze, wait })
}

// enqueueBound inserts attempt 0 of a job with its own bound.
func (b *builder) enqueueBound(n, maxAttempts int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, MaxAttempts: maxAttempts})
}

// runOnce reserves and starts job n on w and lets a second pass.
func (b *builder) runOnce(n int, w ulid.ULID) {
	b.commit(w, b.reserve(n, w))
	b.start(n, w)
	b.after(time.Second)
}

var scheduleKey = "report|scheduled,available,running"

// keyedSchedule gives schedule "tick" a unique key, and inserts job 50 on
// another queue holding it.
func keyedSchedule(b *builder) {
	b.params.Schedules[0].UniqueKey = scheduleKey
	setup(b)
	b.commit(none, b.insertJob(JobRow{ID: job(50), Queue: "manual", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
		UniqueKey: scheduleKey, UniqueWhile: "scheduled,available,running"}))
}

var policyCases = []violationCase{
	{"retry beyond the queue's bound", RetryBounds, "beyond queue q's bound of 1 attempts", func(b *builder) int {
		b.params.Policies = []QueuePolicy{{Queue: "q", MaxAttempts: 1}}
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second)) })
	}},
	{"retry beyond the job's own bound", RetryBounds, "beyond the job's own bound of 1 attempts", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueBound(1, 1))
		b.runOnce(1, w1)
		b.end(1, w1, Retry)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second)) })
	}},
	{"no retry with the job's own attempts left", RetryBounds, "no next attempt in that transaction", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueBound(1, 5))
		b.run(1, w1, Retry, 2)
		b.after(5 * time.Second)
		b.reacquire(w1)
		b.duties(w1, b.promote(2))
		b.runOnce(2, w1)
		b.end(2, w1, Retry)
		return atNext(b, func() { b.commit(w1, b.fail(2, "again")) }) // attempt 1 of 5: MaxRetries 2 is not the bound
	}},
	{"retry delay outside the queue's backoff", RetryBounds, "outside the policy", func(b *builder) int {
		b.params.Policies = []QueuePolicy{{Queue: "q", Backoff: &clockrng.Backoff{Base: time.Minute, Factor: 1}}}
		failedOnce(b)
		return atNext(b, func() { b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second)) })
	}},
	{"retry drops the job's own bound", RetryBounds, "has max attempts 0", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueBound(1, 3))
		b.runOnce(1, w1)
		b.end(1, w1, Retry)
		return atNext(b, func() {
			b.commit(w1, b.fail(1, "again"), b.retry(1, 2, 5*time.Second), b.setJob(job(2), func(r *JobRow) { r.MaxAttempts = 0 }))
		})
	}},
	{"rescue retried beyond the job's own bound", RetryBounds, "beyond the job's own bound of 1 attempts", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueBound(1, 1))
		b.commit(w2, b.reserve(1, w2))
		b.after(3 * time.Minute)
		b.reacquire(w1)
		return atNext(b, func() { b.duties(w1, b.shutdownWorker(w2), b.lose(1), b.retry(1, 2, 5*time.Second)) }) + 1
	}},
}

var snoozeCases = []violationCase{
	{"snooze consumes an attempt", Snoozes, "is attempt 1, not the snoozed attempt 0", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, 5*time.Second)
		return atNext(b, func() {
			b.commit(w1, b.snooze(1, 2, 5*time.Second), b.setJob(job(2), func(r *JobRow) { r.Attempt = 1 }))
		})
	}},
	{"snooze runs early", Snoozes, "scheduled 4s after the snooze, which asked for 5s", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, 5*time.Second)
		return atNext(b, func() { b.commit(w1, b.snooze(1, 2, 4*time.Second)) })
	}},
	{"snooze counted twice", Snoozes, "counts 2 snoozes, want 1", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, time.Second)
		return atNext(b, func() { b.commit(w1, b.snooze(1, 2, time.Second), b.setJob(job(2), func(r *JobRow) { r.Snoozes = 2 })) })
	}},
	{"snooze past MaxSnoozes", Snoozes, "the most MaxSnoozes allows", func(b *builder) int {
		b.params.MaxSnoozes = 1
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, time.Second)
		b.commit(w1, b.snooze(1, 2, time.Second))
		b.after(time.Second)
		b.reacquire(w1)
		b.duties(w1, b.promote(2))
		b.runOnce(2, w1)
		b.endSnooze(2, w1, time.Second)
		return atNext(b, func() { b.commit(w1, b.snooze(2, 3, time.Second)) })
	}},
	{"snoozed without a next row", Snoozes, "without a next row in that transaction", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, time.Second)
		return atNext(b, func() {
			b.commit(w1, b.setJob(job(1), func(r *JobRow) { r.Status, r.CompletedAt = Snoozed, b.now }))
		})
	}},
	{"Snooze failed with snoozes left", Snoozes, "fewer than MaxSnoozes 3", func(b *builder) int {
		b.params.MaxSnoozes = 3
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, time.Second)
		return atNext(b, func() { b.commit(w1, b.fail(1, "snoozed too often")) })
	}},
	{"snoozed on a Retry decision", Snoozes, "but its handler decided retry", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.end(1, w1, Retry)
		return atNext(b, func() { b.commit(w1, b.snooze(1, 2, time.Second)) })
	}},
	{"job retried after its Snooze failed it", RetryBounds, "failed it for good (decision snooze)", func(b *builder) int {
		b.params.MaxSnoozes = 0 // the Snooze fails the job
		setup(b)
		b.commit(none, b.enqueue(1))
		b.runOnce(1, w1)
		b.endSnooze(1, w1, time.Second)
		return atNext(b, func() { b.commit(w1, b.fail(1, "too many snoozes"), b.retry(1, 2, 5*time.Second)) })
	}},
}

var scheduleKeyCases = []violationCase{
	{"run without the schedule's key", ScheduleRuns, `carries unique key ""`, func(b *builder) int {
		b.params.Schedules[0].UniqueKey = scheduleKey
		setup(b)
		return atNext(b, func() { b.duties(w1, b.scheduleRun(100)) }) + 1
	}},
	{"cron time skipped while no row holds the key", ScheduleRuns, "while no row holds its unique key", func(b *builder) int {
		b.params.Schedules[0].UniqueKey = scheduleKey
		setup(b)
		return atNext(b, func() { b.duties(w1, b.setSchedule("tick", epoch.Add(time.Minute), none)) }) + 1
	}},
	{"cron time skipped by a schedule without a key", ScheduleRuns, "has no unique key", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.duties(w1, b.setSchedule("tick", epoch.Add(time.Minute), none)) }) + 1
	}},
	{"skip to a later cron time", ScheduleRuns, "not the next cron time", func(b *builder) int {
		keyedSchedule(b)
		return atNext(b, func() { b.duties(w1, b.setSchedule("tick", epoch.Add(2*time.Minute), none)) }) + 1
	}},
	{"skip that drops the pointer to a row still there", ScheduleRuns, "and moves its pointer", func(b *builder) int {
		keyedRunDone(b)
		return atNext(b, func() { b.duties(w1, b.setSchedule("tick", epoch.Add(2*time.Minute), none)) }) + 1
	}},
}

// keyedRunDone runs the keyed schedule's first run to completion, then
// has job 50 take its key.
func keyedRunDone(b *builder) {
	b.params.Schedules[0].UniqueKey = scheduleKey
	setup(b)
	due := epoch.Add(time.Minute)
	b.duties(w1, b.insertJob(JobRow{ID: job(100), Queue: "q", Status: Scheduled, CreatedAt: b.now, ScheduledAt: due,
		ScheduleName: "tick", UniqueKey: scheduleKey, UniqueWhile: "scheduled,available,running"}), b.setSchedule("tick", due, job(100)))
	b.after(time.Minute)
	b.reacquire(w1)
	b.duties(w1, b.promote(100))
	b.run(100, w1, Succeed, 0)
	b.commit(none, b.insertJob(JobRow{ID: job(50), Queue: "manual", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
		UniqueKey: scheduleKey, UniqueWhile: "scheduled,available,running"}))
}

// A skip in the commit whose retention deletes the schedule's latest run
// empties the pointer through the foreign key, and keeps every promise
// (seed 810 of the simulator, once a resume notified its queue).
func TestSkipBesideRetentionOfTheLatestRun(t *testing.T) {
	b := newBuilder()
	keyedRunDone(b)
	b.duties(w1, b.deleteJob(100), b.setSchedule("tick", epoch.Add(2*time.Minute), none))
	b.commit(none, b.setJob(job(50), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("unexpected violation: %v", v)
	}
}

// policyRun keeps every promise: a queue's own bound and backoff, a job's
// own bound over them, snoozes up to MaxSnoozes and the failure after, and
// a schedule skipping a cron time while another job holds its key.
func policyRun(b *builder) {
	b.params.MaxSnoozes = 1
	b.params.Policies = []QueuePolicy{{Queue: "q", MaxAttempts: 1, Backoff: &clockrng.Backoff{Base: time.Minute, Factor: 1}}}
	keyedSchedule(b)
	b.duties(w1, b.setSchedule("tick", epoch.Add(time.Minute), none)) // job 50 holds the key

	b.commit(none, b.enqueue(1), b.enqueueBound(2, 2))
	b.run(1, w1, Retry, 0) // the queue's one attempt
	b.runOnce(2, w1)       // the first of the job's own two, a minute apart
	b.end(2, w1, Retry)
	b.commit(w1, b.fail(2, "again"), b.retry(2, 3, time.Minute))
	b.after(time.Minute)
	b.reacquire(w1)
	b.duties(w1, b.promote(3), b.setSchedule("tick", epoch.Add(2*time.Minute), none)) // still held: skipped again
	b.runOnce(3, w2)
	b.endSnooze(3, w2, 10*time.Second)
	b.commit(w2, b.snooze(3, 4, 10*time.Second))
	b.after(10 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(4))
	b.runOnce(4, w2)
	b.endSnooze(4, w2, time.Second)
	b.commit(w2, b.fail(4, "asked to snooze again after 1 snoozes"))
	b.commit(none, b.setJob(job(50), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
}

func TestPolicyHistoryHasNoViolations(t *testing.T) {
	b := newBuilder()
	policyRun(b)
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("unexpected violation: %v", v)
	}
}
