package sim

import (
	"container/heap"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// event is one thing that happens at a virtual time. seq breaks ties in
// the order events were scheduled, so the queue never depends on anything
// but the simulation's own history.
type event struct {
	at   time.Duration // true time since the simulation's epoch
	seq  uint64
	kind eventKind
	w    int    // worker index, or -1
	inc  int    // worker incarnation the event belongs to
	gen  uint64 // timer generation (runner timers) or execution id
	// timer is the runner timer an evTimer fires.
	timer engine.Timer
	note  store.Notification // evNotify
	conn  string             // evTrip: the connection whose round trip goes
}

// timerEvent returns a zeroed evTimer event, reusing one dispatched
// before: the runner arms a timer on most of its steps.
func (s *sim) timerEvent() *event {
	n := len(s.freeTimers)
	if n == 0 {
		return &event{kind: evTimer}
	}
	e := s.freeTimers[n-1]
	s.freeTimers = s.freeTimers[:n-1]
	*e = event{kind: evTimer}
	return e
}

// recycle keeps a dispatched timer event for timerEvent. Nothing holds an
// event once dispatched: it left the queue, and dispatchProc keeps none.
func (s *sim) recycle(e *event) {
	if e.kind == evTimer {
		s.freeTimers = append(s.freeTimers, e)
	}
}

// eventQueue is a min-heap of events ordered by (at, seq).
type eventQueue struct {
	items []*event
	seq   uint64
}

func (q *eventQueue) Len() int { return len(q.items) }
func (q *eventQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
func (q *eventQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *eventQueue) Push(x any)    { q.items = append(q.items, x.(*event)) }
func (q *eventQueue) Pop() any {
	n := len(q.items) - 1
	e := q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	return e
}

// push schedules e, stamping it with the next sequence number.
func (q *eventQueue) push(e *event) {
	q.seq++
	e.seq = q.seq
	heap.Push(q, e)
}

// peek returns the earliest event without removing it, or nil.
func (q *eventQueue) peek() *event {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() *event { return heap.Pop(q).(*event) }
