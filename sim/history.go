package sim

import (
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
		e.Time = s.storeNow()
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

// violated ends the run at v, a broken property: the trace ends there too,
// and the tick in progress only unwinds.
func (s *sim) violated(v *props.Violation) {
	s.tr.printf(s.now, "sim", "VIOLATION %s", v.Property)
	s.tr.closed = true
	s.stop(v, nil)
}

// count notes one injected fault of kind k.
func (s *sim) count(k FaultKind) { s.res.Faults[k]++ }
