package props

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// stall freezes w's process for d: Stalled, then Resumed d later.
func (b *builder) stall(w ulid.ULID, d time.Duration) {
	b.event(Stalled, w, nil)
	b.after(d)
	b.event(Resumed, w, nil)
}

// wakeBounds sets the bounds of properties 21 and 22: a poll interval of
// about a second, doubled after each failed tick up to 8 s, and a wake-up
// within 2 ms.
func wakeBounds(b *builder) {
	b.params.PollBound, b.params.WakeBound, b.params.Queues = time.Second, 2*time.Millisecond, []string{"q"}
	b.params.BackoffBounds = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}
	setup(b)
}

var wakeCases = []violationCase{
	{"no tick within the poll interval", PollInterval, "began no tick by", func(b *builder) int {
		wakeBounds(b)
		b.event(Waiting, w1, nil)
		b.after(time.Second + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"a stalled wait still owes its tick", PollInterval, "not counting its stalls, 5s", func(b *builder) int {
		wakeBounds(b)
		b.event(Waiting, w1, nil)
		b.after(500 * time.Millisecond)
		b.stall(w1, 5*time.Second)
		b.after(501 * time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"no tick within the error backoff", PollInterval, "past the bound 4s", func(b *builder) int {
		wakeBounds(b)
		b.event(Waiting, w1, func(e *Event) { e.Failures = 2 })
		b.after(4*time.Second + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"past the cap, the last backoff bound", PollInterval, "past the bound 8s", func(b *builder) int {
		wakeBounds(b)
		b.event(Waiting, w1, func(e *Event) { e.Failures = 9 })
		b.after(8*time.Second + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(1)) })
	}},
	{"notification ignored", WakeUp, "notified of jobs available in queue q", func(b *builder) int {
		wakeBounds(b)
		b.event(Waiting, w1, nil)
		b.after(100 * time.Millisecond)
		b.commit(none, b.enqueue(1))
		b.event(Notified, w1, func(e *Event) { e.Queue = "q" })
		b.after(3 * time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(2)) })
	}},
}

// wakeRun keeps properties 21 and 22: ticks within the poll interval and
// at once on a notification, whose job pass reserves; a wait after a
// failed tick, a notification to a full worker or of a queue it does not
// serve, and a stall owe no tick sooner.
func wakeRun(b *builder) {
	wakePassBounds(b)
	b.event(Waiting, w1, nil)
	b.event(Waiting, w2, nil)
	b.after(500 * time.Millisecond)
	b.commit(none, b.enqueue(1), b.enqueue(2))
	b.event(Notified, w1, func(e *Event) { e.Queue = "q" })
	b.event(TickStarted, w1, func(e *Event) { e.Reason = "notification" })
	b.commit(w1, b.reserve(1, w1), b.reserve(2, w1))
	b.start(1, w1)
	b.start(2, w1)
	b.pass(w1, 2, 2)
	b.event(Waiting, w1, nil)
	b.event(Notified, w2, func(e *Event) { e.Queue = "other" }) // not its queue
	b.event(TickStarted, w2, func(e *Event) { e.Reason = "sleep" })
	b.event(Waiting, w2, func(e *Event) { e.Failures = 3 }) // backing off, up to 8 s
	b.after(100 * time.Millisecond)
	b.commit(none, b.enqueue(3))
	b.event(Notified, w1, func(e *Event) { e.Queue = "q" }) // full
	b.event(Notified, w2, func(e *Event) { e.Queue = "q" }) // backing off
	b.after(899 * time.Millisecond)
	b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
	b.event(Waiting, w1, nil)
	b.after(200 * time.Millisecond)
	b.stall(w1, 3*time.Second)
	b.after(799 * time.Millisecond)
	b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
	b.event(TickStarted, w2, func(e *Event) { e.Reason = "sleep" })
	b.commit(w2, b.reserve(3, w2))
	b.start(3, w2)
	b.event(ShutdownBegan, w2, nil)
	b.event(Waiting, w2, nil) // shutting down: owes no tick
	b.after(2 * time.Second)
	b.end(1, w1, Succeed)
	b.end(2, w1, Succeed)
	b.end(3, w2, Succeed)
	b.commit(w1, b.complete(1), b.complete(2))
	b.commit(w2, b.complete(3), b.shutdownWorker(w2))
	b.shutdownDone(w2)
}
