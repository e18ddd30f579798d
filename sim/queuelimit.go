package sim

import "github.com/tickwork/tickwork/props"

// limitMark notes a commit that started a job of a queue limited to more
// than simRunSlots jobs and left the queue at its limit: in the
// simulator's own store that queue's run slots have several places, as a
// limit above store.MaxRunSlots has in production. It reads the counts
// the property checker keeps, after the checker stepped e.
func (s *sim) limitMark(e props.Event) {
	for _, ch := range e.Jobs {
		b, a := ch.Before, ch.After
		if a == nil || a.Status != props.Running || (b != nil && b.Status == props.Running) {
			continue
		}
		if running, limit := s.checker.QueueLoad(a.Queue); limit > simRunSlots && running == limit {
			s.res.Marks.set(MarkLimitBound)
			return
		}
	}
}
