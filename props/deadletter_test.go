package props

import (
	"testing"
	"time"
)

// failDead fails running job n for good and moves it to q.dead in one
// change, as a worker's transaction does; next, if not zero, links it to
// a new attempt next in q in the same commit (what no worker may do).
func (b *builder) failDead(n, next int) change {
	var ins change = func(*Event) {}
	if next != 0 {
		prev := b.jobs[job(n)]
		ins = b.insertJob(JobRow{ID: job(next), Queue: "q", Status: Scheduled, Attempt: prev.Attempt + 1, CreatedAt: b.now, ScheduledAt: b.now.Add(time.Second)})
	}
	move := b.setJob(job(n), func(r *JobRow) {
		r.Status, r.FailedAt, r.FailedReason, r.Queue, r.DeadFrom = Failed, b.now, "boom", "q.dead", "q"
		if next != 0 {
			r.NextAttemptID = job(next)
		}
	})
	return func(e *Event) { ins(e); move(e) }
}

// redrive links dead job n to a new attempt m, available at once in queue.
func (b *builder) redrive(n, m int, queue string) change {
	prev := b.jobs[job(n)]
	ins := b.insertJob(JobRow{ID: job(m), Queue: queue, Status: Available, Attempt: prev.Attempt + 1, CreatedAt: b.now, ScheduledAt: b.now})
	link := b.setJob(job(n), func(r *JobRow) { r.NextAttemptID = job(m) })
	return func(e *Event) { ins(e); link(e) }
}

// oneRunning runs job 1 of q under w1.
func oneRunning(b *builder) {
	setup(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
}

var deadLetterCases = []violationCase{
	{"dead-lettered and retried", DeadLetters, "it did not fail for good", func(b *builder) int {
		oneRunning(b)
		return atNext(b, func() { b.commit(w1, b.failDead(1, 2)) })
	}},
	{"redriven into the dead-letter queue", DeadLetters, `was redriven to queue "q.dead"`, func(b *builder) int {
		oneRunning(b)
		b.commit(w1, b.failDead(1, 0))
		return atNext(b, func() { b.commit(none, b.redrive(1, 2, "q.dead")) })
	}},
	{"a dead letter moved again", DeadLetters, "dead-lettered job 01000000000000000000000001 moved", func(b *builder) int {
		oneRunning(b)
		b.commit(w1, b.failDead(1, 0))
		return atNext(b, func() { b.commit(none, b.setJob(job(1), func(r *JobRow) { r.Queue = "elsewhere" })) })
	}},
}

// TestDeadLettersAllowWhatTheyShould: a job that failed for good moves to
// the dead-letter queue; its redrive past the retry bound goes back to
// q, chained, and runs: no violation of the promises it touches.
func TestDeadLettersAllowWhatTheyShould(t *testing.T) {
	b := newBuilder()
	b.params.MaxRetries = 0
	oneRunning(b)
	b.commit(w1, b.failDead(1, 0))
	b.commit(none, b.redrive(1, 2, "q"))
	b.commit(w1, b.reserve(2, w1))
	b.commit(w1, b.complete(2))
	for _, v := range mustCheck(t, b.history()) {
		if v.Property == DeadLetters || v.Property == RetryBounds || v.Property == WellFormed {
			t.Errorf("violation in a good history: %v", v)
		}
	}
}
