package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/failreason"
)

// enqueueMember inserts job n as a member of the batch whose callback
// is job cb.
func (b *builder) enqueueMember(n, cb int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, Batch: job(cb)})
}

// enqueueCallback inserts job n waiting as a batch's callback.
func (b *builder) enqueueCallback(n int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Awaiting, CreatedAt: b.now, ScheduledAt: b.now, CallbackOf: job(n)})
}

// twoMembers runs jobs 1 and 2 under w1, members of the batch whose
// callback is job 3.
func twoMembers(b *builder) {
	b.params.SerialTransactions = true
	setup(b)
	b.commit(none, b.enqueueMember(1, 3), b.enqueueMember(2, 3), b.enqueueCallback(3))
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
}

var batchCases = []violationCase{
	{"callback released while a member runs", BatchOrder, "while member 01000000000000000000000002 is running", func(b *builder) int {
		twoMembers(b)
		b.commit(w1, b.complete(1))
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.commit(w1, b.release(3)) })
	}},
	{"callback released while a member's retry waits", BatchOrder, "member 01000000000000000000000004 is scheduled", func(b *builder) int {
		twoMembers(b)
		b.commit(w1, b.complete(2))
		b.commit(w1, b.fail(1, "boom"), b.retry(1, 4, 5*time.Second))
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.commit(w1, b.release(3)) })
	}},
	{"callback ran without its batch", BatchOrder, "ran without its batch", func(b *builder) int {
		twoMembers(b)
		b.commit(w1, b.complete(1), b.complete(2))
		b.duties(w1, b.release(3))
		b.commit(w1, b.reserve(3, w1))
		b.start(3, w1)
		return atNext(b, func() { b.endBatchGone(3, w1) })
	}},
	{"callback left waiting by a leader pass", BatchesSettled, "callback 01000000000000000000000003 still waiting", func(b *builder) int {
		twoMembers(b)
		b.commit(w1, b.complete(1), b.complete(2))
		b.event(DutiesStarted, w1, nil)
		return atNext(b, func() { b.event(DutiesEnded, w1, nil) })
	}},
}

// endBatchGone ends job n's attempt on w as the worker ends a callback's
// attempt that found no batch.
func (b *builder) endBatchGone(n int, w ulid.ULID) {
	b.event(ExecEnded, w, func(e *Event) {
		e.Job, e.Decision, e.Reason = job(n), Retry, failreason.BatchGone+": batch "+job(n).String()+": not found"
	})
}

// TestCallbackOfDeletedRowsMayFindNoBatch: an attempt whose callback's
// rows were all deleted while it ran (its worker declared dead) may find
// the batch gone with them.
func TestCallbackOfDeletedRowsMayFindNoBatch(t *testing.T) {
	b := newBuilder()
	twoMembers(b)
	b.commit(w1, b.complete(1), b.complete(2))
	b.duties(w1, b.release(3))
	b.commit(w1, b.reserve(3, w1))
	b.start(3, w1)
	b.commit(w2, b.setJob(job(3), func(r *JobRow) { r.Status, r.FailedAt = Lost, b.now }))
	b.commit(none, b.deleteJob(3))
	b.endBatchGone(3, w1)
	for _, v := range mustCheck(t, b.history()) {
		if v.Property == BatchOrder {
			t.Errorf("violation: %v", v)
		}
	}
}

// TestBatchesAllowWhatTheyShould: a callback released by the pass after
// its last member failed for good, its retries included, is clean.
func TestBatchesAllowWhatTheyShould(t *testing.T) {
	b := newBuilder()
	twoMembers(b)
	b.commit(w1, b.complete(2))
	b.commit(w1, b.fail(1, "boom"), b.retry(1, 4, 5*time.Second))
	b.after(5 * time.Second)
	b.duties(w1, b.promote(4))
	b.commit(w1, b.reserve(4, w1))
	b.commit(w1, b.fail(4, "again"))
	b.duties(w1, b.release(3))
	b.commit(w2, b.reserve(3, w2))
	for _, v := range mustCheck(t, b.history()) {
		if v.Property >= Priorities && v.Property != NoLostJobs {
			t.Errorf("violation in a good history: %v", v)
		}
	}
}
