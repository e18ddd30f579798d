package sim

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/history"
	"github.com/tickwork/tickwork/props"
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
	if len(p.execs) == 0 && s.procRand(p, Shutdown).Chance(0.8) {
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
	s.silenceAtShutdown(p)
	inc := p.inc
	s.request(p, signalNames[0])
	if p.inc != inc {
		return // the runner had nothing to drain and exited: no process is left to signal
	}
	s.moreSignals(p)
}

// signalNames are the signals a simulated process receives, the first
// always the first.
var signalNames = [...]string{"terminated", "interrupt"}

// moreSignals sometimes follows the signal that began p's shutdown with
// another: the same at once (timeout(1) signals the process and then its
// group), the same again a moment later, or another one (an operator's).
// Only the last two give the drain up. They are drawn from a source of
// their own, so that they change no other draw.
func (s *sim) moreSignals(p *proc) {
	if p.stopRnd == nil {
		p.stopRnd = s.master.Child("proc/signals").ChildN(p.name, p.idx)
	}
	r := p.stopRnd
	var at time.Duration
	sig := uint64(0)
	switch x := r.Float64(); {
	case x < 0.5:
		at = r.DurationBetween(0, engine.RepeatWindow/10)
	case x < 0.6:
		at = r.DurationBetween(engine.RepeatWindow*5/4, engine.RepeatWindow*5/4+s.sc.DrainTimeout.D())
	case x < 0.7:
		at, sig = r.DurationBetween(0, s.sc.DrainTimeout.D()), 1
	default:
		return
	}
	s.after(at.Truncate(time.Microsecond), &event{kind: evSignal, w: p.idx, inc: p.inc, gen: sig})
}

// signal delivers a signal to the incarnation it was drawn for. A
// process reads its signals beside its runner's loop, so they are judged
// at once, busy or not; only what they ask of the runner waits for it.
func (s *sim) signal(e *event) {
	if p := s.procs[e.w]; p.inc == e.inc && p.core != nil {
		s.request(p, signalNames[e.gen])
	}
}

// request judges a signal to p with the runner's own rules
// (engine.StopRequests), records it and carries out what it means: the
// first stops the runner, a second gives its drain up. The handlers'
// contexts are checked after the first, which must not end them.
func (s *sim) request(p *proc, sig string) {
	v, id, inc := p.stops.Judge(sig, s.storeNow()), p.core.ID(), p.inc
	if v != engine.StopBegin { // "SHUTDOWN begins" traces the first
		s.tr.printf(s.now, p.name, "signal %s", sig)
	}
	s.record(&props.Event{Kind: props.StopRequested, Process: p.name, Worker: id, Reason: sig})
	switch v {
	case engine.StopBegin:
		s.step(p, engine.Input{Kind: engine.InStop})
		if p.inc != inc { // the runner had nothing to drain and exited
			return
		}
		p.stopCancel()
		if s.sweep(p) > 0 {
			s.record(&props.Event{Kind: props.ExecsCancelled, Process: p.name, Worker: id})
		}
	case engine.StopRepeat:
		s.res.Marks.set(MarkStopRepeated)
	case engine.StopAbandon:
		if len(p.execs) > 0 {
			s.res.Marks.set(MarkDrainAbandoned)
		}
		s.after(0, &event{kind: evAbandon, w: p.idx, inc: p.inc})
	}
}

// outageAtShutdown sometimes takes the database down as a shutdown begins,
// for up to the drain and every try of the release and the shutdown, so
// that runners give the shutdown up and leave their jobs to a leader.
func (s *sim) outageAtShutdown() {
	r := s.clientRand(Outage)
	if !s.on(Outage) || !r.Chance(0.2) {
		return
	}
	length := r.DurationBetween(time.Second, s.sc.DrainTimeout.D()+40*s.sc.PollInterval.D()).Truncate(time.Microsecond)
	s.outages = append(s.outages, window{s.now, min(s.now+length, s.sc.Chaos.D())})
	s.count(Outage)
	s.tr.printf(s.now, "db", "outage for %v", length)
}

// silenceAtShutdown sometimes makes the store silent to p as its
// shutdown begins (a connection black-holed): none of its incarnation's
// calls returns but by its timeout, so the runner gives its shutdown up
// within engine.ShutdownBound. Drawn from a source of its own.
func (s *sim) silenceAtShutdown(p *proc) {
	if !s.on(Outage) {
		return
	}
	if s.silenceRnd == nil {
		s.silenceRnd = s.master.Child("global/silence")
	}
	if s.silenceRnd.Chance(0.25) {
		p.silent = true
		s.tr.printf(s.now, p.name, "store silent")
	}
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
