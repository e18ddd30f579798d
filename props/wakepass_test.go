package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// wakePassBounds sets what the second half of property 22 needs on top
// of wakeBounds: a serial history and MaxFetch.
func wakePassBounds(b *builder) {
	b.params.SerialTransactions, b.params.MaxFetch = true, 2
	wakeBounds(b)
}

// notifiedTick has w1 wait, see job 1 enqueued, be notified and tick.
func notifiedTick(b *builder) {
	wakePassBounds(b)
	b.event(Waiting, w1, nil)
	b.after(100 * time.Millisecond)
	b.commit(none, b.enqueue(1))
	b.event(Notified, w1, func(e *Event) { e.Queue = "q" })
	b.event(TickStarted, w1, func(e *Event) { e.Reason = "notification" })
}

// pass records a job pass of w that asked for limit jobs of q and
// reserved reserved.
func (b *builder) pass(w ulid.ULID, limit, reserved int) {
	b.event(JobPass, w, func(e *Event) { e.PassQueues, e.Limit, e.Reserved = []string{"q"}, limit, reserved })
}

// reservesTwoOfThree has w1's woken pass reserve two of three jobs, its
// MaxFetch, filling its two places unless MaxConcurrent is larger.
func reservesTwoOfThree(b *builder) {
	notifiedTick(b)
	b.commit(none, b.enqueue(2), b.enqueue(3))
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
	b.start(1, w1)
	b.start(2, w1)
	b.pass(w1, 2, 2)
}

var wakePassCases = []violationCase{
	{"the woken pass asked for nothing", WakeUp, "asked for 0 jobs of queues [q] and reserved 0, leaving 2 places free and job", func(b *builder) int {
		notifiedTick(b)
		return atNext(b, func() { b.pass(w1, 0, 0) })
	}},
	{"the woken tick ran no job pass", WakeUp, "without a job pass", func(b *builder) int {
		notifiedTick(b)
		return atNext(b, func() { b.event(Waiting, w1, nil) })
	}},
	{"a poll tick's pass left a job it could take", PollInterval, "asked for 0 jobs of queues [q] and reserved 0, leaving 2 of 2 places free and job", func(b *builder) int {
		wakePassBounds(b)
		b.event(Waiting, w1, nil)
		b.commit(none, b.enqueue(1))
		b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
		return atNext(b, func() { b.pass(w1, 0, 0) })
	}},
	{"one job taken, the other left", WakeUp, "reserved 1, leaving 1 places free and job", func(b *builder) int {
		notifiedTick(b)
		b.params.MaxFetch = 5
		b.commit(none, b.enqueue(2))
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		return atNext(b, func() { b.pass(w1, 1, 1) })
	}},
}

// TestWokenPassExceptions: a woken pass that leaves the notified job is
// excused when the history shows it could not take it, or cannot judge.
func TestWokenPassExceptions(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"taken by another worker": func(b *builder) {
			notifiedTick(b)
			b.commit(w2, b.reserve(1, w2))
			b.pass(w1, 2, 0)
		},
		"no free place after the pass": reservesTwoOfThree,
		"MaxFetch reserved": func(b *builder) {
			b.params.MaxConcurrent = 5
			reservesTwoOfThree(b)
		},
		"paused": func(b *builder) {
			notifiedTick(b)
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", PausedAt: b.now}))
			b.pass(w1, 2, 0)
		},
		"at its limit": func(b *builder) {
			notifiedTick(b)
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", Limit: 1}), b.enqueue(2))
			b.commit(w2, b.reserve(2, w2))
			b.pass(w1, 2, 0)
		},
		"rate-limited": func(b *builder) {
			notifiedTick(b)
			b.commit(none, b.queueRow("q", &QueueRow{Name: "q", Rate: 1, RatePeriod: time.Second}))
			b.pass(w1, 2, 0)
		},
		"not ready": func(b *builder) {
			wakePassBounds(b)
			b.event(Waiting, w1, nil)
			b.commit(none, b.insertJob(JobRow{ID: job(1), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now.Add(time.Second)}))
			b.event(Notified, w1, func(e *Event) { e.Queue = "q" })
			b.event(TickStarted, w1, nil)
			b.pass(w1, 2, 0)
		},
		"no worker registered": func(b *builder) {
			notifiedTick(b)
			b.event(JobPass, none, func(e *Event) { e.Process = b.procName(w1) })
		},
		"the tick failed": func(b *builder) {
			notifiedTick(b)
			b.event(Waiting, w1, func(e *Event) { e.Failures = 1 })
		},
		"overlapping transactions": func(b *builder) {
			notifiedTick(b)
			b.params.SerialTransactions = false
			b.pass(w1, 0, 0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			c, err := New(b.params)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range b.events { // safety only: the jobs are left as they are
				if v := c.Step(&e); v != nil {
					t.Errorf("event %d: unexpected violation: %v", i, v)
				}
			}
		})
	}
}
