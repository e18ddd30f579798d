package props

import (
	"strings"
	"testing"
	"time"
)

// runningOnW2 leaves job 1 executing on worker 2.
func runningOnW2(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w2, b.reserve(1, w2))
	b.start(1, w2)
}

var singleExecutionCases = []violationCase{
	{"started before the reserve committed", SingleExecution, "whose row is available", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		return atNext(b, func() { b.start(1, w1) })
	}},
	{"started twice", SingleExecution, "while it executes on process p2", func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.start(1, w2) })
	}},
	{"started by a second worker", SingleExecution, "running under " + w2.String(), func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.start(1, w1) })
	}},
	{"reserved by a second worker", SingleExecution, "moved from worker", func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.commit(w1, b.reserve(1, w1)) })
	}},
	{"result of another worker", SingleExecution, "not fenced", func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.commit(w1, b.complete(1)) })
	}},
	{"unfenced result on a rescued row", SingleExecution, "finished job", func(b *builder) int {
		runningOnW2(b)
		b.after(3 * time.Minute)
		b.reacquire(w1)
		b.duties(w1, b.shutdownWorker(w2), b.lose(1), b.retry(1, 2, 5*time.Second))
		b.end(1, w2, Succeed)
		return atNext(b, func() { b.commit(w2, b.complete(1)) })
	}},
	{"started after its rescue, transactions serial", SingleExecution, "already rescued as lost", func(b *builder) int {
		b.params.SerialTransactions = true
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w2, b.reserve(1, w2))
		b.after(3 * time.Minute)
		b.reacquire(w1)
		b.duties(w1, b.shutdownWorker(w2), b.lose(1), b.retry(1, 2, 5*time.Second))
		return atNext(b, func() { b.start(1, w2) })
	}},
	{"declared dead within the threshold", SingleExecution, "within the dead threshold", func(b *builder) int {
		runningOnW2(b)
		b.after(time.Minute)
		b.reacquire(w1)
		return atNext(b, func() { b.duties(w1, b.shutdownWorker(w2)) }) + 1
	}},
	{"rescued from a live worker", SingleExecution, "while its worker", func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.duties(w1, b.lose(1)) }) + 1
	}},
	{"fenced while still running under it", SingleExecution, "fenced off though", func(b *builder) int {
		runningOnW2(b)
		return atNext(b, func() { b.event(ResultFenced, w2, func(e *Event) { e.Job = job(1) }) })
	}},
	{"worker back to life", SingleExecution, "came back to life", func(b *builder) int {
		setup(b)
		b.commit(w2, b.shutdownWorker(w2))
		return atNext(b, func() { b.commit(w2, b.setWorker(w2, func(r *WorkerRow) { r.ShutdownAt = time.Time{} })) })
	}},
	{"heartbeat after shutdown", SingleExecution, "heartbeat after", func(b *builder) int {
		setup(b)
		b.commit(w2, b.shutdownWorker(w2))
		b.after(time.Second)
		return atNext(b, func() { b.commit(w2, b.heartbeat(w2)) })
	}},
}

// firstRunDue brings schedule "tick"'s first run (job 100) to running on
// worker 1 at its cron time, one minute in.
func firstRunDue(b *builder) {
	setup(b)
	b.duties(w1, b.scheduleRun(100))
	b.after(time.Minute)
	b.reacquire(w1)
	b.duties(w1, b.promote(100))
	b.commit(w1, b.reserve(100, w1))
}

var scheduleCases = []violationCase{
	{"two runs for one cron time", ScheduleRuns, "not after the previous run", func(b *builder) int {
		setup(b)
		b.duties(w1, b.scheduleRun(100))
		b.commit(none, b.setJob(job(100), func(r *JobRow) { r.Status, r.CancelledAt = Cancelled, b.now }))
		return atNext(b, func() { b.duties(w1, b.scheduleRun(101)) }) + 1
	}},
	{"run of a schedule with no cron time", ScheduleRuns, "no cron time after its creation", func(b *builder) int {
		b.params.Schedules = append(b.params.Schedules, ScheduleSpec{Name: "feb30", Cron: "0 0 0 30 2 *"})
		setup(b)
		return atNext(b, func() {
			b.duties(w1, b.insertJob(JobRow{ID: job(100), Queue: "q", Status: Available, CreatedAt: b.now, ScheduleName: "feb30"}),
				b.setSchedule("feb30", time.Time{}, job(100)))
		}) + 1
	}},
	{"overlapping runs", ScheduleRuns, "previous run's attempt", func(b *builder) int {
		firstRunDue(b)
		b.after(time.Second)
		return atNext(b, func() { b.duties(w1, b.scheduleRun(101)) }) + 1
	}},
	{"overlap through a pending retry", ScheduleRuns, "previous run's attempt", func(b *builder) int {
		firstRunDue(b)
		b.start(100, w1)
		b.end(100, w1, Retry)
		b.commit(w1, b.fail(100, "again"), b.retry(100, 101, 5*time.Second), b.setSchedule("tick", b.scheds["tick"].LastScheduledAt, job(101)))
		return atNext(b, func() { b.duties(w1, b.scheduleRun(102)) }) + 1
	}},
	{"missed cron time made up", ScheduleRuns, "next cron time after its creation", func(b *builder) int {
		setup(b)
		b.after(90 * time.Second)
		b.reacquire(w1)
		due := epoch.Add(time.Minute) // already past
		return atNext(b, func() {
			b.duties(w1, b.insertJob(JobRow{ID: job(100), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: due, ScheduleName: "tick"}),
				b.setSchedule("tick", due, job(100)))
		}) + 1
	}},
	{"old run retried after a new run", ScheduleRuns, "after a newer run", func(b *builder) int {
		firstRunDue(b) // its failure below carries no logged decision
		b.commit(w1, b.fail(100, "no"))
		b.duties(w1, b.scheduleRun(101))
		return atNext(b, func() { b.commit(w1, b.retry(100, 102, 5*time.Second)) })
	}},
	{"schedule pointer not at the latest run", ScheduleRuns, "not of its latest run", func(b *builder) int {
		firstRunDue(b)
		b.start(100, w1)
		b.end(100, w1, Succeed)
		b.commit(w1, b.complete(100))
		b.duties(w1, b.scheduleRun(101))
		return atNext(b, func() { b.commit(w1, b.setSchedule("tick", b.scheds["tick"].LastScheduledAt, job(100))) })
	}},
	{"fired event disagrees with the row", ScheduleRuns, "fired job", func(b *builder) int {
		setup(b)
		b.duties(w1, b.scheduleRun(100))
		return atNext(b, func() {
			b.event(ScheduleFired, w1, func(e *Event) { e.Schedule, e.Job, e.CronTime = "tick", job(100), epoch })
		})
	}},
	{"run of an unknown schedule", ScheduleRuns, "which the params do not list", func(b *builder) int {
		setup(b)
		return atNext(b, func() {
			b.duties(w1, b.insertJob(JobRow{ID: job(100), Queue: "q", Status: Scheduled, CreatedAt: b.now, ScheduledAt: b.now.Add(time.Minute), ScheduleName: "other"}))
		}) + 1
	}},
}

var wellFormedCases = []violationCase{
	{"seq goes back", WellFormed, "does not follow", func(b *builder) int {
		setup(b)
		b.seq -= 2
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"time goes back", WellFormed, "goes back", func(b *builder) int {
		setup(b)
		b.after(-time.Second)
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"change from an unseen row", WellFormed, "never had", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.jobs[job(1)] = JobRow{ID: job(1), Status: Available}
		return atNext(b, func() { b.commit(w1, b.reserve(1, w1)) })
	}},
	{"end without start", WellFormed, "where it was not executing", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.end(1, w1, Succeed) })
	}},
	{"unknown kind", WellFormed, "unknown event kind", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.event("bogus", w1, nil) })
	}},
	{"illegal transition", WellFormed, "went from available to completed", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		return atNext(b, func() { b.commit(w1, b.complete(1)) })
	}},
	{"deleting a live row", WellFormed, "deleted while available", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		r := b.jobs[job(1)]
		return atNext(b, func() { b.duties(w1, func(e *Event) { e.Jobs = append(e.Jobs, JobChange{Before: &r}) }) }) + 1
	}},
}

// TestOverlapWithAHeldAttempt: a retry can only exist once its previous row
// failed, so two attempts overlapping while the first still runs under its
// worker follows an earlier violation; the overlap is reported as well.
func TestOverlapWithAHeldAttempt(t *testing.T) {
	b := newBuilder()
	runningOnW2(b)
	b.commit(w2, b.retry(1, 2, 5*time.Second)) // a retry of a running row
	b.after(5 * time.Second)
	b.reacquire(w1)
	b.duties(w1, b.promote(2))
	b.commit(w1, b.reserve(2, w1))
	at := atNext(b, func() { b.start(2, w1) })
	for _, v := range mustCheck(t, b.history()) {
		if v.Property == SingleExecution && v.Index == at && strings.Contains(v.Message, "whose worker still holds it") {
			return
		}
	}
	t.Fatalf("no single-execution violation at event %d", at)
}
