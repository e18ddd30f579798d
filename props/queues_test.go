package props

import (
	"testing"
	"time"
)

// queueRow sets a queues row (nil: deletes it) in a commit.
func (b *builder) queueRow(name string, after *QueueRow) change {
	return func(e *Event) {
		var before *QueueRow
		for i := len(b.events) - 1; i >= 0 && before == nil; i-- {
			for _, ch := range b.events[i].Queues {
				if ch.After != nil && ch.After.Name == name {
					before = ch.After
				}
			}
		}
		e.Queues = append(e.Queues, QueueChange{Before: before, After: after})
	}
}

// enqueueAt inserts attempt 0 of job n with priority p, due at once.
func (b *builder) enqueueAt(n, p int) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now, Priority: p})
}

var queueCases = []violationCase{
	{"lower priority taken over a higher one", Priorities, "stayed available", func(b *builder) int {
		b.params.SerialTransactions = true
		setup(b)
		b.commit(none, b.enqueueAt(1, 0), b.enqueueAt(2, 5))
		return atNext(b, func() { b.commit(w1, b.reserve(2, w1)) })
	}},
	{"reserved from a paused queue", QueuePause, "after the pause", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.queueRow("q", &QueueRow{Name: "q", PausedAt: b.now}))
		b.after(time.Second)
		return atNext(b, func() { b.commit(w1, b.reserve(1, w1)) })
	}},
	{"reserved while every queue is paused", QueuePauseAll, "after the pause of all queues", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.queueRow("", &QueueRow{PausedAt: b.now}))
		b.after(time.Second)
		return atNext(b, func() { b.commit(w1, b.reserve(1, w1)) })
	}},
	{"limit taken past by a second worker", QueueLimit, "over its limit 1", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.enqueue(2), b.queueRow("q", &QueueRow{Name: "q", Limit: 1}))
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() { b.commit(w2, b.reserve(2, w2)) })
	}},
	{"rate taken past by a second worker", QueueRate, "over the queue's rate of 1 per 10s", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1), b.enqueue(2), b.queueRow("q", &QueueRow{Name: "q", Rate: 1, RatePeriod: 10 * time.Second}))
		b.commit(w1, b.reserve(1, w1), b.complete(1))
		b.after(10*time.Second - time.Microsecond)
		return atNext(b, func() { b.commit(w2, b.reserve(2, w2)) })
	}},
}

// TestQueueControlsAllowWhatTheyShould: the same histories without the
// fault are clean, and a priority inversion is not judged on a history
// whose transactions may overlap (the row may have been locked).
func TestQueueControlsAllowWhatTheyShould(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"priority order kept": func(b *builder) {
			b.params.SerialTransactions = true
			setup(b)
			b.commit(none, b.enqueueAt(1, 0), b.enqueueAt(2, 5))
			b.commit(w1, b.reserve(1, w1))
			b.commit(w1, b.reserve(2, w1))
		},
		"inversion with overlapping transactions": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueueAt(1, 0), b.enqueueAt(2, 5))
			b.commit(w1, b.reserve(2, w1))
		},
		"reserved after resume": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1), b.queueRow("q", &QueueRow{Name: "q", PausedAt: b.now}))
			b.commit(none, b.queueRow("q", nil))
			b.commit(w1, b.reserve(1, w1))
		},
		"reserved after resume-all, the queue's own pause apart": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1), b.queueRow("", &QueueRow{PausedAt: b.now}), b.queueRow("r", &QueueRow{Name: "r", PausedAt: b.now}))
			b.commit(none, b.queueRow("", nil))
			b.commit(w1, b.reserve(1, w1))
		},
		"rate reached once the period passed": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1), b.enqueue(2), b.enqueue(3),
				b.queueRow("q", &QueueRow{Name: "q", Rate: 1, RatePeriod: 10 * time.Second}))
			b.commit(w1, b.reserve(1, w1))
			b.after(10 * time.Second)
			b.commit(w2, b.reserve(2, w2))
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", Rate: 1, RatePeriod: 20 * time.Second}))
			b.commit(w2, b.reserve(3, w2)) // a new rate: the starts before it do not count
		},
		"limit reached after a finish": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueue(1), b.enqueue(2), b.queueRow("q", &QueueRow{Name: "q", Limit: 1}))
			b.commit(w1, b.reserve(1, w1))
			b.commit(w1, b.complete(1))
			b.commit(w2, b.reserve(2, w2))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				if v.Property >= Priorities { // the history ends with jobs running: liveness is not the point
					t.Errorf("violation in a good history: %v", v)
				}
			}
		})
	}
}
