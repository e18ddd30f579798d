package sim

import (
	"time"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/worker/engine"
)

// The simulator runs the production runner's policy (engine.Policy): each
// process steps it with what happened and carries out its actions on the
// event queue, as worker.Run does with goroutines and timers. The
// simulator decides nothing about the queue itself: it models time,
// faults and handlers, and carries out actions.

// step feeds in to p's runner policy and carries out what it decides.
func (s *sim) step(p *proc, in engine.Input) {
	if p.policy == nil {
		return
	}
	acts := p.policy.Step(in)
	s.markStep(in, acts)
	s.carry(p, acts)
}

// carry carries out acts in order. A store call, always the last action,
// runs on p's coroutine (it may park on store latency); its return is
// stepped from there.
func (s *sim) carry(p *proc, acts []engine.Action) {
	for _, a := range acts {
		switch a.Kind {
		case engine.ActStart:
			for _, j := range a.Jobs {
				s.startExec(p, j)
			}
		case engine.ActArm:
			p.timerGen[a.Timer]++
			e := s.timerEvent()
			e.w, e.inc, e.gen, e.timer = p.idx, p.inc, p.timerGen[a.Timer], a.Timer
			s.after(p.clock.trueDelay(a.After), e)
		case engine.ActCancelRunning:
			s.tr.printf(s.now, p.name, "cancelling %d jobs", len(p.execs))
			p.cancelled = true
			s.cancelAll(p)
		case engine.ActCancelJobs:
			s.cancelJobs(p, a)
		case engine.ActCall:
			p.act = a
			s.call(p, p.callAct)
		case engine.ActVacuum:
			s.startVacuum(p, a)
		case engine.ActExit:
			s.exit(p, a.Err)
		case engine.ActQueueDrained:
			s.tr.printf(s.now, p.name, "queue %s drained", a.Queue)
		}
	}
}

// cancelAll carries out ActCancelRunning on p's handler contexts and
// stops the handlers whose contexts it ended.
func (s *sim) cancelAll(p *proc) {
	p.ctxs.Carry(engine.Action{Kind: engine.ActCancelRunning})
	s.sweep(p)
	p.policy.ReportCancelled()
}

// drainCancel is why sweep cancels a handler: the context the runner
// made it from ended (the drain deadline, or the stop under a planted
// bug).
const drainCancel = "context canceled"

// sweep stops the handlers of p whose contexts have ended.
func (s *sim) sweep(p *proc) (n int) {
	for _, ex := range p.execs {
		if ex.ctx.Err() != nil && !ex.cancelled {
			s.cancelExec(p, ex, drainCancel)
			n++
		}
	}
	return n
}

// cancelJobs cancels the contexts of the handlers of jobs whose rows were
// cancelled, as worker.Run cancels each job's own context.
func (s *sim) cancelJobs(p *proc, a engine.Action) {
	p.ctxs.Carry(a)
	for _, id := range a.JobIDs {
		for _, ex := range p.execs {
			if ex.row.ID == id && ex.ctx.Err() != nil {
				s.tr.printf(s.now, p.name, "cancel exec %s (%s)", s.names.job(id), a.Reason)
				s.cancelExec(p, ex, "job cancelled")
			}
		}
	}
	mark := MarkCancelByJobPass
	if a.Reason == engine.CancelByNotification {
		mark = MarkCancelByNotification
	}
	s.res.Marks.set(mark)
	p.policy.ReportJobsCancelled(a)
}

// markStep sets the coverage marks of the runner's rarer paths.
func (s *sim) markStep(in engine.Input, acts []engine.Action) {
	if in.Kind != engine.InTimer || len(acts) == 0 || acts[len(acts)-1].Kind != engine.ActCall {
		return
	}
	switch call := acts[len(acts)-1].Call; {
	case in.Timer == engine.TimerLinger && call == engine.CallTick:
		s.res.Marks.set(MarkLingerExpired)
	case in.Timer == engine.TimerGrace && call == engine.CallRelease:
		s.res.Marks.set(MarkGraceExpired)
	}
}

// timerFired steps p with one of its timers, unless a later arming
// replaced it.
func (s *sim) timerFired(p *proc, e *event) {
	if e.gen == p.timerGen[e.timer] {
		s.step(p, engine.Input{Kind: engine.InTimer, Timer: e.timer})
	}
}

// storeCall makes one store call of p's core at its local time and steps
// the policy with what it returned.
func (s *sim) storeCall(p *proc, a engine.Action) {
	local := p.clock.read(s.now)
	running := len(p.execs)
	ctx := p.stopCtx // as Run's ctx: the stop ends it
	if a.Detached {
		ctx = s.ctx
	}
	p.deadline, p.callDeadline = 0, 0
	if a.Timeout > 0 {
		p.callDeadline = s.now + p.clock.trueDelay(a.Timeout)
	}
	if a.Detached {
		// Store latency meets the deadline only after the stop; while
		// serving, the half-open kind alone waits for it (halfopen.go).
		p.deadline = p.callDeadline
	}
	in := p.policy.Do(ctx, a, local)
	s.traceCall(p, a.Call, local, in, running)
	if a.Call == engine.CallRelease && in.Err == nil {
		// The handlers go on, abandoned, until the process exits; their
		// results are no longer wanted.
		p.execs = nil
	}
	s.step(p, in)
}

// traceCall writes one line for a store call's return.
func (s *sim) traceCall(p *proc, call engine.Call, local time.Time, in engine.Input, running int) {
	if s.tr.quiet {
		return
	}
	errText := ""
	if in.Err != nil {
		errText = " err " + s.errText(in.Err)
	}
	switch call {
	case engine.CallTick:
		b := appendTime(append(s.tr.begin(s.now, p.name), "tick local "...), local)
		b = append(b, " start ["...)
		for i, j := range in.Start {
			if i > 0 {
				b = append(b, ' ')
			}
			b = s.names.appendJob(b, j.ID)
		}
		s.tr.add(append(append(b, ']'), errText...))
	case engine.CallDuties:
		if in.Err != nil {
			s.tr.printf(s.now, p.name, "duties%s", errText)
		}
	case engine.CallRelease:
		s.tr.printf(s.now, p.name, "release %d jobs%s", running, errText)
	case engine.CallShutdown:
		if in.Err != nil {
			s.tr.printf(s.now, p.name, "shutdown%s", errText)
		}
	}
}

// exit ends p's incarnation as the policy decided: after a completed
// shutdown (which must leave the worker owning nothing), or after giving
// the shutdown up (a leader rescues what it owns). Either way the process
// exits and later starts again.
func (s *sim) exit(p *proc, err error) {
	id := p.core.ID()
	if err != nil {
		s.res.Marks.set(MarkShutdownGaveUp)
		s.tr.printf(s.now, p.name, "SHUTDOWN abandoned as %s: %s", s.names.worker(id), s.errText(err))
	} else {
		ev := props.Event{Kind: props.ShutdownCompleted, Process: p.name, Worker: id}
		ev.Running, ev.LeaseHolder = s.ownedBy(id)
		s.tr.printf(s.now, p.name, "SHUTDOWN complete as %s", s.names.worker(id))
		s.record(&ev)
	}
	s.down(p, s.procRand(p, Shutdown).DurationBetween(500*time.Millisecond, 10*time.Second))
}
