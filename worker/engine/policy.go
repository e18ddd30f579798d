package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Policy is the runner's every decision as a step function: when to tick,
// which wake-ups matter, how long finished results linger before they are
// recorded, how a shutdown drains, cancels, releases and retries. It does
// no I/O: a driver feeds it Inputs and carries out the Actions Step
// returns, with goroutines and timers (Worker.Run) or on a virtual event
// queue (the simulator), so that both run the same policy. Store calls are
// actions too: the driver makes them with Do and steps the policy with
// what they returned. The Core beneath it holds the queue logic.
//
// A driver makes one store call at a time and steps the policy with
// nothing else until that call returned; Step is not safe for concurrent
// use. The vacuum of an ActVacuum is the one exception: it runs beside
// the calls (Vacuum touches no state of the policy), and its return is
// stepped like any other input, between calls.
type Policy struct {
	core    *Core
	phase   runPhase
	calling bool // a CallTick/CallDuties/CallRelease/CallShutdown is out
	// backingOff: the last tick failed, so only the poll timer (the
	// backoff) starts the next one.
	backingOff bool
	lingering  bool // a job finished; collecting others before ticking
	tries      int  // failed attempts of the current shutdown step
	// acts holds what the last Step returned: the policy is stepped on
	// every timer, result and call, and one buffer spares an allocation
	// each time.
	acts []Action
}

// runPhase is where the runner is in its life.
type runPhase uint8

const (
	serving   runPhase = iota // ticking and reserving
	draining                  // stop requested: waiting for running jobs until the drain deadline
	grace                     // contexts cancelled: a last wait before releasing
	releasing                 // releasing the jobs that did not return
	closing                   // recording the shutdown
	exited
)

// resultLinger is how long the runner waits, after a job finished, for the
// other running jobs to finish too before the next tick, so that one tick
// records them all and refills their slots together: a tick costs far more
// than short jobs do, and ticking after each result would reserve one job
// at a time. A long job delays the next tick by at most this.
const resultLinger = time.Millisecond

// ShutdownAttempts bounds the tries of each final store write (releasing
// the jobs left at the drain deadline, recording the shutdown).
const ShutdownAttempts = 5

// NewPolicy returns the policy of a runner driving core.
func NewPolicy(core *Core) *Policy { return &Policy{core: core} }

// Core returns the core beneath the policy.
func (p *Policy) Core() *Core { return p.core }

// Exited reports whether the policy returned ActExit.
func (p *Policy) Exited() bool { return p.phase == exited }

// ReportCancelled is how a driver reports that it carried out
// ActCancelRunning: the core's observer gets EventJobsCancelled, so that
// a history shows the cancellation that really happened, and the cancel
// check stops asking (every context is cancelled, those of jobs started
// later too).
func (p *Policy) ReportCancelled() {
	p.core.contextsDone = true
	e := p.core.event(EventJobsCancelled, p.core.id)
	e.Count = len(p.core.executing)
	p.core.emit(e)
}

// Do makes the store call a (an ActCall) at local time now and returns the
// input that reports its return.
func (p *Policy) Do(ctx context.Context, a Action, now time.Time) Input {
	in := Input{Kind: InCallReturned, Call: a.Call}
	switch a.Call {
	case CallTick:
		p.core.wokenBy = a.Wake
		var res tickResult
		res, in.Err = p.core.tick(ctx, now)
		in.Start, in.Cancel = res.Start, res.Cancel
	case CallDuties:
		in.Err = p.core.runDuties(ctx)
	case CallRelease:
		in.Err = p.core.release(ctx, p.core.runningIDs())
	case CallShutdown:
		in.Err = p.core.shutdown(ctx)
	}
	return in
}

// Step feeds one input to the policy and returns what to do, in order. An
// ActCall is always the last action. The slice is the policy's own and
// holds until the next Step: a driver carries it out before it steps
// again (the ActCall, last, is what leads to the next Step). It panics if
// the policy's or the core's invariants break (see checkInvariants).
func (p *Policy) Step(in Input) []Action {
	if p.phase == exited {
		return nil
	}
	clear(p.acts) // drop the last step's jobs
	p.acts = p.queueDrains(p.step(in, p.acts[:0]))
	p.checkInvariants(in, p.acts)
	p.core.checkStepInvariants("runner step")
	return p.acts
}

// step appends to out what to do after in, as the functions below do.
func (p *Policy) step(in Input, out []Action) []Action {
	if p.calling != (in.Kind == InCallReturned) {
		panic(fmt.Sprintf("worker: runner policy stepped with input %d while a store call is out: %v", in.Kind, p.calling))
	}
	switch in.Kind {
	case InStarted:
		return append(out, p.tick(""))
	case InTimer:
		return p.timer(in.Timer, out)
	case InJobFinished:
		return p.finished(in.Result, out)
	case InNotification:
		if in.Note.Channel == store.ChannelCancel {
			return p.cancelJobs([]ulid.ULID{in.Note.Job}, CancelByNotification, out)
		}
		if p.phase == serving && in.Note.Channel == store.ChannelAvailable && (in.Note.Queue == store.AllQueues || p.core.handles(in.Note.Queue)) {
			e := p.core.event(EventNotified, p.core.id)
			e.Reason = in.Note.Queue
			p.core.emit(e)
			if mutant.On(mutant.WakeIgnored) {
				return out
			}
		}
		if p.phase == serving && !p.backingOff && !p.lingering && p.wants(in.Note) {
			return append(out, p.tick("notification"))
		}
		if p.phase == serving && p.core.full() {
			e := p.core.event(EventNotificationIgnored, p.core.id)
			e.Reason = "full"
			p.core.emit(e)
		}
		return out
	case InStop:
		return p.stop(out)
	case InAbandon:
		return p.abandon(out)
	case InCallReturned:
		p.calling = false
		return p.returned(in, out)
	case InVacuumEnded:
		p.vacuumEnded(in.Err)
		return out
	case InQueueAdded, InQueueRemoved:
		return p.queueChange(in, out)
	}
	panic(fmt.Sprintf("worker: runner policy stepped with unknown input %d", in.Kind))
}

// wants reports whether a notification gives the next tick something to
// do: a stepdown (the lease is free), or a job on a queue this worker
// handles (any, for store.AllQueues: a resume of all) while it has a free
// slot.
func (p *Policy) wants(n store.Notification) bool {
	if n.Channel == store.ChannelStepdown {
		return true
	}
	return !p.core.full() && (n.Queue == store.AllQueues || p.core.handles(n.Queue))
}

func (p *Policy) call(c Call) Action {
	p.calling = true
	a := Action{Kind: ActCall, Call: c, Detached: p.phase != serving}
	switch {
	case a.Detached && !mutant.On(mutant.ShutdownCallsUntimed):
		a.Timeout = ShutdownCallTimeout(p.core.cfg)
	case !a.Detached && !mutant.On(mutant.CallNoDeadline):
		a.Timeout = p.core.cfg.CallTimeout
	}
	return a
}

func (p *Policy) tick(wake string) Action {
	p.lingering = false
	if p.phase == serving {
		e := p.core.event(EventTickStarted, p.core.id)
		e.Reason = wake
		p.core.emit(e)
	}
	a := p.call(CallTick)
	a.Wake = wake
	return a
}

func arm(t Timer, after time.Duration) Action { return Action{Kind: ActArm, Timer: t, After: after} }

// timer handles a fired timer. A timer the current phase no longer waits
// for is ignored.
func (p *Policy) timer(t Timer, out []Action) []Action {
	switch {
	case t == TimerPoll && p.phase <= grace:
		if p.phase == serving {
			return append(out, p.tick("sleep"))
		}
		return append(out, p.tick(""))
	case t == TimerLinger && p.lingering && p.phase == serving:
		return append(out, p.tick("task"))
	case t == TimerDrain && p.phase == draining:
		p.phase = grace
		cfg := p.core.cfg
		e := p.core.event(EventDrainDeadline, p.core.id)
		e.Count = len(p.core.executing)
		p.core.emit(e)
		if !mutant.On(mutant.RunnerNoCancel) && !mutant.On(mutant.DrainCancelLate) {
			out = append(out, Action{Kind: ActCancelRunning})
		}
		return append(out, arm(TimerGrace, graceOf(cfg)))
	case t == TimerGrace && p.phase == grace:
		if mutant.On(mutant.ReleaseWaitsForHandlers) {
			return out // the last handler to return closes (finished)
		}
		if mutant.On(mutant.DrainCancelLate) {
			out = append(out, Action{Kind: ActCancelRunning})
		}
		return p.release(out)
	case t == TimerRetry && p.phase == releasing:
		return p.release(out)
	case t == TimerRetry && p.phase == closing:
		return append(out, p.call(CallShutdown))
	}
	return out
}

// finished hands a result to the core and decides whether to tick now.
// While serving, the first result starts a linger of ResultLinger, ended
// early when no job is left running; while backing off results wait for
// the backoff's tick; while draining, the last one ends the drain.
func (p *Policy) finished(r Result, out []Action) []Action {
	if !(mutant.On(mutant.RunnerDropResults) && p.backingOff) {
		p.core.finished(r)
	}
	idle := len(p.core.executing) == 0
	switch {
	case p.phase == serving && p.backingOff:
		return out
	case p.phase == serving && idle:
		return append(out, p.tick("task"))
	case p.phase == serving && !p.lingering:
		p.lingering = true
		return append(out, arm(TimerLinger, resultLinger))
	case (p.phase == draining || p.phase == grace) && idle:
		return p.close(out)
	}
	return out
}

// stop begins a graceful shutdown: no more reserving, lease maintenance or
// duties; running jobs get DrainTimeout to finish, without a transaction
// held open while they do.
func (p *Policy) stop(out []Action) []Action {
	if p.phase != serving {
		return out
	}
	p.core.beginShutdown()
	p.core.emit(p.core.event(EventStopRequested, p.core.id))
	p.phase, p.lingering = draining, false
	if len(p.core.executing) == 0 {
		return p.close(out)
	}
	if mutant.On(mutant.RunnerDrainNoWait) {
		return p.timer(TimerDrain, out)
	}
	return append(out, arm(TimerDrain, p.core.cfg.DrainTimeout))
}

// abandon gives the drain up: the drain deadline is now. A runner not
// stopped yet stops first; one past the deadline has nothing to give up.
func (p *Policy) abandon(out []Action) []Action {
	if p.phase == serving {
		out = p.stop(out)
	}
	if p.phase != draining {
		return out
	}
	return p.timer(TimerDrain, out)
}

// returned decides what follows a store call.
func (p *Policy) returned(in Input, out []Action) []Action {
	switch in.Call {
	case CallTick:
		out = p.cancelJobs(in.Cancel, CancelByJobPass, out)
		if len(in.Start) > 0 {
			out = append(out, Action{Kind: ActStart, Jobs: in.Start})
		}
		if p.core.dutiesPending() {
			return append(out, p.call(CallDuties))
		}
		return p.afterTick(out)
	case CallDuties:
		return p.afterTick(p.startVacuum(out))
	case CallRelease:
		if in.Err == nil || errors.Is(in.Err, errShutDown) {
			return p.close(out)
		}
		if p.retry(in.Err, EventReleaseAbandoned) {
			return append(out, p.retryTimer())
		}
		return p.close(out) // Shutdown releases them too, or a leader rescues them
	case CallShutdown:
		if in.Err == nil || errors.Is(in.Err, errShutDown) {
			p.phase = exited
			return append(out, Action{Kind: ActExit})
		}
		if p.retry(in.Err, EventShutdownAbandoned) {
			return append(out, p.retryTimer())
		}
		p.phase = exited
		return append(out, Action{Kind: ActExit, Err: fmt.Errorf("worker: record the shutdown: %w", in.Err)})
	}
	panic(fmt.Sprintf("worker: runner policy got the return of unknown call %d", in.Call))
}

// afterTick waits for the next tick, or ends a drain that has nothing left.
func (p *Policy) afterTick(out []Action) []Action {
	p.backingOff = p.core.failing()
	if p.phase != serving && len(p.core.executing) == 0 {
		return p.close(out)
	}
	if p.phase == serving {
		e := p.core.event(EventWaiting, p.core.id)
		e.Count = p.core.failures
		p.core.emit(e)
	}
	return append(out, arm(TimerPoll, p.core.nextPoll()))
}

// release gives up the jobs still running after the grace, or goes on to
// the shutdown when none is left.
func (p *Policy) release(out []Action) []Action {
	if len(p.core.executing) == 0 {
		return p.close(out)
	}
	p.phase = releasing
	return append(out, p.call(CallRelease))
}

// close records the shutdown.
func (p *Policy) close(out []Action) []Action {
	p.phase, p.tries = closing, 0
	return append(out, p.call(CallShutdown))
}

// retry counts a failed shutdown step and reports whether to try it again
// (after retryTimer); after ShutdownAttempts failures it reports with an
// event of kind abandoned that the step was given up.
func (p *Policy) retry(err error, abandoned EventKind) bool {
	p.tries++
	if p.tries < ShutdownAttempts && !mutant.On(mutant.RunnerShutdownNoRetry) {
		return true
	}
	e := p.core.event(abandoned, p.core.id)
	e.Count, e.Err = p.tries, err
	p.core.emit(e)
	p.tries = 0
	return false
}

// retryTimer arms the backoff before the next try of a shutdown step.
func (p *Policy) retryTimer() Action {
	return arm(TimerRetry, errorBackoff(p.core.cfg, p.tries))
}
