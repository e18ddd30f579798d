package props

import (
	"testing"

	"github.com/oklog/ulid/v2"
)

// queueEvent records process w's removal, adding back or drain of queue q.
func queueEvent(b *builder, kind Kind, w ulid.ULID, q string) {
	b.event(kind, w, func(e *Event) { e.Queue = q })
}

// pass records a job pass of w asking for queues.
func pass(b *builder, w ulid.ULID, queues ...string) {
	b.event(JobPass, w, func(e *Event) { e.PassQueues, e.Limit = queues, 1 })
}

var queueRemovalCases = []violationCase{
	{"a tick after the removal asks for the queue", QueueRemoval, "asked for queue q in a job pass", func(b *builder) int {
		setup(b)
		queueEvent(b, QueueRemoved, w1, "q")
		b.event(TickStarted, w1, nil)
		return atNext(b, func() { pass(b, w1, "other", "q") })
	}},
	{"drained while a job of the queue runs", QueueRemoval, "1 of its jobs", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		queueEvent(b, QueueRemoved, w1, "q")
		return atNext(b, func() { queueEvent(b, QueueDrained, w1, "q") })
	}},
	{"drained with a result unrecorded", QueueRemoval, "1 of its jobs", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueue(1))
		b.commit(w1, b.reserve(1, w1))
		b.start(1, w1)
		b.end(1, w1, Succeed)
		queueEvent(b, QueueRemoved, w1, "q")
		return atNext(b, func() { queueEvent(b, QueueDrained, w1, "q") })
	}},
	{"drained without a removal", QueueRemoval, "which it has not removed", func(b *builder) int {
		setup(b)
		queueEvent(b, QueueRemoved, w1, "q")
		queueEvent(b, QueueAdded, w1, "q")
		return atNext(b, func() { queueEvent(b, QueueDrained, w1, "q") })
	}},
}

// A removal whose pass was out asks for the queue once more, its job runs
// to its recorded result, the queue drains, and once added back a pass
// asks for it again: no violation. A new life forgets the removal.
func TestQueueRemovalKeptIsNoViolation(t *testing.T) {
	b := newBuilder()
	setup(b)
	b.commit(none, b.enqueue(1))
	b.event(TickStarted, w1, nil)
	queueEvent(b, QueueRemoved, w1, "q")
	b.commit(w1, b.reserve(1, w1))
	pass(b, w1, "q") // made before the removal
	b.start(1, w1)
	b.end(1, w1, Succeed)
	b.commit(w1, b.complete(1))
	queueEvent(b, QueueDrained, w1, "q")
	b.event(TickStarted, w1, nil)
	pass(b, w1, "other")
	queueEvent(b, QueueAdded, w1, "q")
	b.event(TickStarted, w1, nil)
	pass(b, w1, "q")
	queueEvent(b, QueueRemoved, w1, "q")
	b.event(Crashed, w1, nil)
	b.event(Restarted, w1, nil)
	b.event(TickStarted, w1, nil)
	pass(b, w1, "q")
	if vs := mustCheck(t, b.history()); len(vs) != 0 {
		t.Fatalf("violations:\n%v", vs)
	}
}
