package sim

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// The core's word on its lease against the rows. A live worker's history
// log writes the lease rows from the core's events (cmd/worker), so there a
// renewal keeps the term's elected_at and a new term starts one; the
// simulator records the rows the store wrote, so a core that reports a new
// term as a renewal would go unseen. checkLeaseReport holds the report to
// the rows: a renewal extends the term the worker last reported taking.

// leaseTerms are, per holder, the elected_at of the last lease row a
// commit left it and of the term it last reported taking.
type leaseTerms struct {
	row, reported map[ulid.ULID]time.Time
}

// noteTerm notes the elected_at of the lease row l, which a commit left.
func (s *sim) noteTerm(l *store.Lease) {
	if s.terms.row == nil {
		s.terms = leaseTerms{row: map[ulid.ULID]time.Time{}, reported: map[ulid.ULID]time.Time{}}
	}
	s.terms.row[l.WorkerID] = l.ElectedAt
}

// checkLeaseReport notes the term of e, a lease taken, and stops the run
// if e, a renewal, was made on a row of another term: the worker's last
// lease expired, its row was deleted, and the worker took a new one, which
// a live history log would record as the expired term renewed.
func (s *sim) checkLeaseReport(e *engine.Event) {
	t := &s.terms
	row, ok := t.row[e.Worker]
	if e.Kind == engine.EventLeaseAcquired {
		t.reported[e.Worker] = row
		return
	}
	if term, seen := t.reported[e.Worker]; ok && seen && term.Equal(row) {
		return
	}
	s.violated(&props.Violation{Property: props.LeaderUniqueness, Index: int(s.histSeq), Seq: s.histSeq, Time: e.StoreTime,
		Message: fmt.Sprintf("%s reported renewing the lease it took at %s, but its lease row was elected at %s: a new term, after the last one expired",
			s.names.worker(e.Worker), t.reported[e.Worker].Format(stampLayout), row.Format(stampLayout))})
}

// stampLayout writes a store time in a violation's message.
const stampLayout = "15:04:05.000000"
