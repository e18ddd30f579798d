package sim

import (
	"time"

	"github.com/tickwork/tickwork/props"
)

// record stamps e with the next sequence number and (unless it carries
// one) the store's time now, appends it to the history and checks the
// safety properties on it. The first violation stops the run.
func (s *sim) record(e *props.Event) {
	if s.stopped {
		return
	}
	s.histSeq++
	e.Seq = s.histSeq
	if e.Time.IsZero() {
		e.Time = s.stampNow()
	}
	if s.onRecord != nil {
		s.onRecord(*e)
	}
	if v := s.checker.Step(e); v != nil {
		s.violated(v)
		return
	}
	s.limitMark(e)
	s.keyLimitMark(e)
	s.sequenceMark(e)
}

// stamped is a store time and the true time it was for.
type stamped struct {
	at time.Duration
	t  time.Time
}

// stampNow is storeNow, worked out once per instant: record stamps two
// or three events an instant, and a transaction or two begins, each a
// time.Time addition otherwise. It runs on the run's goroutine only: the
// in-memory store of a run not interleaved gets it as its clock; another
// backend, or an interleaved run's, whose transactions may read the
// clock from goroutines of their own, gets storeNow.
func (s *sim) stampNow() time.Time {
	if s.stamped.t.IsZero() || s.stamped.at != s.now {
		s.stamped = stamped{at: s.now, t: s.storeNow()}
	}
	return s.stamped.t
}

// violated ends the run at v, a broken property: the trace ends there too,
// and the tick in progress only unwinds.
func (s *sim) violated(v *props.Violation) {
	s.tr.printf(s.now, "sim", "VIOLATION %s", v.Property)
	s.tr.closed = true
	s.stop(v, nil)
}

// count notes one injected fault of kind k.
func (s *sim) count(k FaultKind) { s.res.Faults[k]++ }
