package sim

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/history"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// shutdownTimer is the shutdown fault's timer. Most shutdowns wait for the
// process's next job to start, so that they find work to drain.
func (s *sim) shutdownTimer(p *proc) {
	defer s.armProcFault(p, Shutdown)
	if p.core == nil || p.draining || s.phase != chaos {
		return
	}
	if len(p.execs) == 0 && p.rnd[Shutdown].Chance(0.8) {
		p.shutdownDue = true
		return
	}
	s.beginShutdown(p)
}

// beginShutdown asks p's runner for a graceful shutdown; its policy
// drains, cancels, releases and records the shutdown from there.
func (s *sim) beginShutdown(p *proc) {
	p.shutdownDue = false
	if p.core == nil || p.draining || s.phase != chaos {
		return
	}
	s.count(Shutdown)
	if len(p.execs) > 0 {
		s.res.Marks.set(MarkShutdownInFlight)
	}
	p.draining = true
	s.tr.printf(s.now, p.name, "SHUTDOWN begins with %d jobs running", len(p.execs))
	s.outageAtShutdown()
	s.step(p, engine.Input{Kind: engine.InStop})
}

// outageAtShutdown sometimes takes the database down as a shutdown begins,
// for up to the drain and every try of the release and the shutdown, so
// that runners give the shutdown up and leave their jobs to a leader.
func (s *sim) outageAtShutdown() {
	r := s.clientRand(Outage)
	if !s.sc.On(Outage) || !r.Chance(0.2) {
		return
	}
	length := r.DurationBetween(time.Second, s.sc.DrainTimeout.D()+40*s.sc.PollInterval.D()).Truncate(time.Microsecond)
	s.outages = append(s.outages, window{s.now, min(s.now+length, s.sc.Chaos.D())})
	s.count(Outage)
	s.tr.printf(s.now, "db", "outage for %v", length)
}

// ownedBy reads, without faults, what a shut-down worker must no longer
// own (history.Owned).
func (s *sim) ownedBy(worker ulid.ULID) (running []ulid.ULID, holder ulid.ULID) {
	err := s.be.InTx(s.ctx, func(tx store.Tx) (err error) {
		running, holder, err = history.Owned(s.ctx, tx, worker)
		return err
	})
	s.takeCommits(nil)
	if err != nil {
		s.stop(nil, err)
	}
	return running, holder
}
