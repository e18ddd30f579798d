package props

import (
	"testing"
	"time"
)

// enqueuePartition inserts attempt 0 of job n with partition key k, due at
// once.
func (b *builder) enqueuePartition(n int, k string) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, PartitionKey: k})
}

// hotAndCold enqueues jobs 1 to 3 of key hot and job 4 of key cold in a
// queue limited to one job per key.
func hotAndCold(b *builder) {
	setup(b)
	b.commit(none, b.queueRow("q", &QueueRow{Name: "q", KeyLimit: 1}),
		b.enqueuePartition(1, "hot"), b.enqueuePartition(2, "hot"), b.enqueuePartition(3, "hot"), b.enqueuePartition(4, "cold"))
}

var keyCases = []violationCase{
	{"a key's second job taken by a second worker", QueueKeyLimit, `of key "hot" running, over its per-key limit 1`, func(b *builder) int {
		hotAndCold(b)
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(w2, b.reserve(2, w2)) })
	}},
	{"a cold job passed over in a serial history", KeyFairness, `job 01000000000000000000000004 of key "cold"`, func(b *builder) int {
		b.params.SerialTransactions = true
		setup(b)
		b.commit(none, b.queueRow("q", &QueueRow{Name: "q", KeyLimit: 1}), b.enqueuePartition(4, "cold"), b.enqueuePartition(5, "hot"))
		return atNext(b, func() { b.commit(w1, b.reserve(5, w1)) })
	}},
	{"a cold job passed over too often with overlapping transactions", KeyFairness, "passed over by 9 commits in a row", func(b *builder) int {
		setup(b)
		b.commit(none, b.queueRow("q", &QueueRow{Name: "q", KeyLimit: 20}), b.enqueuePartition(1, "cold"))
		for n := 2; n <= 1+FairnessSlack; n++ {
			b.commit(none, b.enqueuePartition(n, "hot"))
			b.commit(w1, b.reserve(n, w1))
		}
		b.commit(none, b.enqueuePartition(20, "hot"))
		return atNext(b, func() { b.commit(w1, b.reserve(20, w1)) })
	}},
	{"a pass stopped at a key at its limit", KeyFairness, "leaving 2 of 2 places free and job 01000000000000000000000004", func(b *builder) int {
		wakePassBounds(b)
		hotAndCold(b)
		b.commit(w2, b.reserve(1, w2))
		b.event(Waiting, w1, nil)
		b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
		return atNext(b, func() { b.pass(w1, 2, 0) })
	}},
}

// TestKeyLimitsAllowWhatTheyShould: histories that keep the per-key
// limits and skip over held keys are clean, and a job held by its key's
// limit is not one a reservation could have taken.
func TestKeyLimitsAllowWhatTheyShould(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"cold taken past the hot backlog": func(b *builder) {
			b.params.SerialTransactions = true
			hotAndCold(b)
			b.commit(w1, b.reserve(1, w1), b.reserve(4, w1))
			b.commit(w1, b.complete(1))
			b.commit(w2, b.reserve(2, w2))
		},
		"a held key's urgent job waits while another key's runs": func(b *builder) {
			b.params.SerialTransactions = true
			setup(b)
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", KeyLimit: 1}), b.enqueuePartition(1, "hot"))
			b.commit(w1, b.reserve(1, w1))
			b.commit(none, b.insertJob(JobRow{ID: job(2), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, PartitionKey: "hot"}),
				b.insertJob(JobRow{ID: job(3), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, PartitionKey: "cold", Priority: 5}))
			b.commit(w2, b.reserve(3, w2))
		},
		"a pass leaves only held jobs": func(b *builder) {
			wakePassBounds(b)
			hotAndCold(b)
			b.commit(w2, b.reserve(1, w2), b.reserve(4, w2))
			b.event(Waiting, w1, nil)
			b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
			b.pass(w1, 2, 0)
		},
		"passed over within the slack": func(b *builder) {
			setup(b)
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", KeyLimit: 20}), b.enqueuePartition(1, "cold"))
			for n := 2; n <= 1+FairnessSlack; n++ {
				b.commit(none, b.enqueuePartition(n, "hot"))
				b.commit(w1, b.reserve(n, w1))
			}
			b.after(time.Second)
			b.commit(w1, b.reserve(1, w1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				if v.Property >= Priorities {
					t.Errorf("violation in a good history: %v", v)
				}
			}
		})
	}
}
