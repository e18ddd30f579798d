package sim

import "github.com/tickwork/tickwork/props"

// limitMark notes a commit that started a job of a queue limited to
// limitMarkLeast jobs or more and left the queue at its limit: several
// workers' jobs then fill the limit together, and the next start has to
// count them all. It reads the counts the property checker keeps, after
// the checker stepped e.
func (s *sim) limitMark(e *props.Event) {
	for _, ch := range e.Jobs {
		b, a := ch.Before, ch.After
		if a == nil || a.Status != props.Running || (b != nil && b.Status == props.Running) {
			continue
		}
		if running, limit := s.checker.QueueLoad(a.Queue); limit >= limitMarkLeast && running == limit {
			s.res.Marks.set(MarkLimitBound)
			return
		}
	}
}

// limitMarkLeast is the smallest limit limitMark notes: the largest the
// simulator draws.
const limitMarkLeast = 3
