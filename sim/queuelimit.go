package sim

import (
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// limitBook is what the simulator keeps of queue limits for
// MarkLimitBound: each queue's limit and its jobs running, from the
// commits.
type limitBook struct {
	limit   map[string]int
	running map[string]int
}

// setLimit records a queues row's limit (none for no row).
func (b *limitBook) setLimit(name string, q *store.Queue) {
	if b.limit == nil {
		b.limit = map[string]int{}
	}
	b.limit[name] = 0
	if q != nil {
		b.limit[name] = q.Limit
	}
}

// limitMark counts a job row's change in or out of running, and notes a
// start that brings a queue limited to more than simRunSlots jobs to its
// limit: in the simulator's own store that queue's run slots have several
// places, as a limit above store.MaxRunSlots has in production.
func (s *sim) limitMark(b, a *props.JobRow) {
	was, is := b != nil && b.Status == props.Running, a != nil && a.Status == props.Running
	if was == is {
		return
	}
	book := &s.limits
	if book.running == nil {
		book.running = map[string]int{}
	}
	if was {
		book.running[b.Queue]--
		return
	}
	book.running[a.Queue]++
	if n := book.limit[a.Queue]; n > simRunSlots && book.running[a.Queue] == n {
		s.res.Marks.set(MarkLimitBound)
	}
}
