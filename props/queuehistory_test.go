package props

import (
	"testing"
	"time"
)

// noHistory sets queue q to keep no history.
func (b *builder) noHistory() change { return b.queueRow("q", &QueueRow{Name: "q", NoHistory: true}) }

var queueHistoryCases = []violationCase{
	{"completion deleted a row of a queue that keeps history", QueueHistory, "which keeps history, was deleted", func(b *builder) int {
		oneRunning(b)
		return atNext(b, func() { b.commit(w1, b.deleteJob(1)) })
	}},
	{"completion deleted a row a waiting job waits for", QueueHistory, "waits for it", func(b *builder) int {
		setup(b)
		b.commit(none, b.noHistory(), b.enqueue(1), b.enqueueChild(2, false, 1))
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(w1, b.deleteJob(1), b.release(2)) })
	}},
	{"completion deleted a batch member", QueueHistory, "member of batch", func(b *builder) int {
		setup(b)
		b.commit(none, b.noHistory(), b.enqueueMember(1, 3), b.enqueueCallback(3))
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(w1, b.deleteJob(1)) })
	}},
	{"completion deleted a retry its earlier attempt names", QueueHistory, "earlier attempt", func(b *builder) int {
		setup(b)
		b.commit(none, b.noHistory(), b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.commit(w1, b.fail(1, "boom"), b.retry(1, 2, 5*time.Second))
		b.after(5 * time.Second).reacquire(w1)
		b.duties(w1, b.promote(2))
		b.commit(w1, b.reserve(2, w1))
		return atNext(b, func() { b.commit(w1, b.deleteJob(2)) })
	}},
	{"another worker's commit deleted a running row", SingleExecution, "which runs under", func(b *builder) int {
		setup(b)
		b.commit(none, b.noHistory(), b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(w2, b.deleteJob(1)) })
	}},
	{"an operator deleted a running row", WellFormed, "deleted while running", func(b *builder) int {
		setup(b)
		b.commit(none, b.noHistory(), b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(none, b.deleteJob(1)) })
	}},
}

// TestQueueHistoryAllowsWhatItShould: on a queue without history a job
// that runs and completes leaves no row, its child released in the same
// commit once it no longer waits for it; no violation.
func TestQueueHistoryAllowsWhatItShould(t *testing.T) {
	b := newBuilder()
	setup(b)
	b.commit(none, b.noHistory(), b.enqueue(1), b.enqueue(2))
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
	b.commit(w1, b.deleteJob(1), b.complete(2))
	for _, v := range mustCheck(t, b.history()) {
		t.Errorf("violation in a good history: %v", v)
	}
}
