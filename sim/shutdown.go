package sim

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
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

// beginShutdown starts a graceful shutdown of p: stop reserving, let the
// running jobs finish until the drain deadline, then cancel them, release
// what still runs, and shut the worker down.
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
	p.core.BeginShutdown()
	s.tr.printf(s.now, p.name, "SHUTDOWN begins with %d jobs running", len(p.execs))
	s.record(props.Event{Kind: props.ShutdownBegan, Process: p.name, Worker: p.core.ID()})
	if len(p.execs) == 0 {
		s.finishShutdown(p)
		return
	}
	s.after(p.clock.trueDelay(s.sc.DrainTimeout.D()), &event{kind: evDrainDeadline, w: p.idx, inc: p.inc})
}

// drainDeadline cancels the handlers still running; those that honour
// cancellation return shortly, the others are released after a grace.
func (s *sim) drainDeadline(p *proc) {
	if !p.draining || len(p.execs) == 0 {
		return
	}
	s.res.Marks.set(MarkDrainDeadline)
	s.tr.printf(s.now, p.name, "drain deadline: cancelling %d jobs", len(p.execs))
	for _, ex := range p.execs {
		s.cancelExec(p, ex, "context canceled")
	}
	s.after(p.clock.trueDelay(s.sc.CancelGrace.D()), &event{kind: evReleaseDeadline, w: p.idx, inc: p.inc})
}

// releaseLeft releases the jobs that ignored cancellation, then shuts down.
func (s *sim) releaseLeft(p *proc) {
	if !p.draining {
		return
	}
	s.call(p, func() {
		if len(p.execs) > 0 {
			ids := make([]ulid.ULID, len(p.execs))
			for i, ex := range p.execs {
				ids[i] = ex.job
			}
			if err := p.core.Release(s.ctx, ids); err != nil {
				s.tr.printf(s.now, p.name, "release %d jobs failed: %s", len(ids), s.errText(err))
				s.shutdownLater(p)
				return
			}
			s.tr.printf(s.now, p.name, "released %d jobs", len(ids))
			// The handlers go on, abandoned, until the process exits below;
			// their results are no longer wanted.
			p.execs = nil
		}
		s.finishShutdown(p)
	})
}

// finishShutdown records the last results, marks the worker shut down and
// gives up the lease; the process then exits and later starts again. Its
// callers have seen every execution return or released it.
func (s *sim) finishShutdown(p *proc) {
	s.call(p, func() {
		id := p.core.ID()
		if err := p.core.Shutdown(s.ctx); err != nil {
			s.tr.printf(s.now, p.name, "shutdown failed: %s", s.errText(err))
			s.shutdownLater(p)
			return
		}
		ev := props.Event{Kind: props.ShutdownCompleted, Process: p.name, Worker: id}
		ev.Running, ev.LeaseHolder = s.ownedBy(id)
		s.tr.printf(s.now, p.name, "SHUTDOWN complete as %s", s.names.worker(id))
		s.record(ev)
		s.down(p, p.rnd[Shutdown].DurationBetween(500*time.Millisecond, 10*time.Second))
	})
}

// shutdownLater tries a failed release or shutdown again after a pause.
func (s *sim) shutdownLater(p *proc) {
	p.shutdownTry++
	wait := s.sc.PollInterval.D() << min(p.shutdownTry, 5)
	s.after(p.clock.trueDelay(wait), &event{kind: evShutdownRetry, w: p.idx, inc: p.inc})
}

func (s *sim) retryShutdown(p *proc) {
	if !p.draining {
		return
	}
	if len(p.execs) > 0 {
		s.releaseLeft(p)
		return
	}
	s.finishShutdown(p)
}

// ownedBy reads, without faults, the jobs running under worker and the
// lease holder: what a shut-down worker must no longer own.
func (s *sim) ownedBy(worker ulid.ULID) (running []ulid.ULID, holder ulid.ULID) {
	err := s.be.InTx(s.ctx, func(tx store.Tx) error {
		if !worker.IsZero() {
			jobs, err := tx.RunningJobs(s.ctx, worker)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				running = append(running, j.ID)
			}
		}
		l, err := tx.GetLease(s.ctx)
		if err == nil {
			holder = l.WorkerID
		}
		return nil
	})
	s.takeCommits(nil)
	if err != nil {
		s.stop(nil, err)
	}
	return running, holder
}
