package props

import (
	"testing"
	"time"
)

const liveStatuses = "scheduled,available,running"

// enqueueKeyed inserts job n holding key while it is live.
func (b *builder) enqueueKeyed(n int, key, while string) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
		UniqueKey: key, UniqueWhile: while})
}

// retryKeyed is retry with the key inherited, as the stores do.
func (b *builder) retryKeyed(n, m int, delay time.Duration) change {
	prev := b.jobs[job(n)]
	ins := b.insertJob(JobRow{ID: job(m), Queue: prev.Queue, Status: Scheduled, Attempt: prev.Attempt + 1,
		CreatedAt: b.now, ScheduledAt: b.now.Add(delay), UniqueKey: prev.UniqueKey, UniqueWhile: prev.UniqueWhile})
	link := b.setJob(job(n), func(r *JobRow) { r.NextAttemptID = job(m) })
	return func(e *Event) { ins(e); link(e) }
}

var uniqueCases = []violationCase{
	{"second live row with a key", UniqueKeys, "holds unique key \"k\" while job", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueKeyed(1, "k", liveStatuses))
		return atNext(b, func() { b.commit(none, b.enqueueKeyed(2, "k", liveStatuses)) })
	}},
	{"two in one commit", UniqueKeys, "holds unique key", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.commit(none, b.enqueueKeyed(1, "k", liveStatuses), b.enqueueKeyed(2, "k", liveStatuses)) })
	}},
	{"a completed row that keeps its key", UniqueKeys, "holds unique key", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueKeyed(1, "k", liveStatuses+",completed"))
		b.commit(w1, b.reserve(1, w1))
		b.commit(w1, b.complete(1))
		return atNext(b, func() { b.commit(none, b.enqueueKeyed(2, "k", liveStatuses+",completed")) })
	}},
}

// A key passes from a failed row to its retry in the commit that fails it,
// and from a completed row to a new one when completed is not covered.
func TestUniqueKeyHandOversAreNoViolations(t *testing.T) {
	b := newBuilder()
	setup(b)
	b.commit(none, b.enqueueKeyed(1, "k", liveStatuses))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.end(1, w1, Retry)
	b.commit(w1, b.fail(1, "again"), b.retryKeyed(1, 2, 5*time.Second))
	b.after(5 * time.Second)
	runsRetryOnW1(b)
	b.commit(none, b.enqueueKeyed(3, "k", liveStatuses))
	b.commit(w1, b.reserve(3, w1))
	b.start(3, w1)
	b.end(3, w1, Succeed)
	b.commit(w1, b.complete(3))
	if vs := mustCheck(t, b.history()); len(vs) != 0 {
		t.Fatalf("violations:\n%v", vs)
	}
}
