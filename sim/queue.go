package sim

import (
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

// eventQueue is a min-heap of events ordered by (at, seq). It sifts by
// hand rather than through container/heap, whose calls through an
// interface for every comparison and swap cost more than the comparisons:
// every event passes through it. (at, seq) orders events totally, so the
// order they leave in does not depend on how the heap is kept.
type eventQueue struct {
	items []*event
	seq   uint64
}

// earlier orders events by (at, seq).
func earlier(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules e, stamping it with the next sequence number.
func (q *eventQueue) push(e *event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, e)
	items := q.items
	i := len(items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !earlier(e, items[parent]) {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = e
}

// peek returns the earliest event without removing it, or nil.
func (q *eventQueue) peek() *event {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

// pop removes and returns the earliest event; the queue must not be
// empty.
func (q *eventQueue) pop() *event {
	items := q.items
	top, n := items[0], len(items)-1
	last := items[n]
	items[n] = nil
	items = items[:n]
	q.items = items
	if n == 0 {
		return top
	}
	i := 0
	for {
		small := 2*i + 1
		if small >= n {
			break
		}
		if r := small + 1; r < n && earlier(items[r], items[small]) {
			small = r
		}
		if !earlier(items[small], last) {
			break
		}
		items[i] = items[small]
		i = small
	}
	items[i] = last
	return top
}
