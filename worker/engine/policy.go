package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	p.core.emit(Event{Kind: EventJobsCancelled, Worker: p.core.id, Count: len(p.core.executing)})
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
// ActCall is always the last action. It panics if the policy's or the
// core's invariants break (see checkInvariants).
func (p *Policy) Step(in Input) []Action {
	if p.phase == exited {
		return nil
	}
	acts := p.step(in)
	p.checkInvariants(in, acts)
	p.core.checkStepInvariants("runner step")
	return acts
}

func (p *Policy) step(in Input) []Action {
	if p.calling != (in.Kind == InCallReturned) {
		panic(fmt.Sprintf("worker: runner policy stepped with input %d while a store call is out: %v", in.Kind, p.calling))
	}
	switch in.Kind {
	case InStarted:
		return []Action{p.tick("")}
	case InTimer:
		return p.timer(in.Timer)
	case InJobFinished:
		return p.finished(in.Result)
	case InNotification:
		if in.Note.Channel == store.ChannelCancel {
			return p.cancelJobs([]ulid.ULID{in.Note.Job}, CancelByNotification)
		}
		if p.phase == serving && in.Note.Channel == store.ChannelAvailable {
			p.core.emit(Event{Kind: EventNotified, Worker: p.core.id, Reason: in.Note.Queue})
			if mutant.On(mutant.WakeIgnored) {
				return nil
			}
		}
		if p.phase == serving && !p.backingOff && !p.lingering && p.wants(in.Note) {
			return []Action{p.tick("notification")}
		}
		if p.phase == serving && p.core.full() {
			p.core.emit(Event{Kind: EventNotificationIgnored, Worker: p.core.id, Reason: "full"})
		}
		return nil
	case InStop:
		return p.stop()
	case InAbandon:
		return p.abandon()
	case InCallReturned:
		p.calling = false
		return p.returned(in)
	case InVacuumEnded:
		return p.vacuumEnded(in.Err)
	}
	panic(fmt.Sprintf("worker: runner policy stepped with unknown input %d", in.Kind))
}

// wants reports whether a notification gives the next tick something to
// do: a stepdown (the lease is free), or a job on a queue this worker
// handles while it has a free slot.
func (p *Policy) wants(n store.Notification) bool {
	if n.Channel == store.ChannelStepdown {
		return true
	}
	return !p.core.full() && slices.Contains(p.core.cfg.Queues, n.Queue)
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
		p.core.emit(Event{Kind: EventTickStarted, Worker: p.core.id, Reason: wake})
	}
	a := p.call(CallTick)
	a.Wake = wake
	return a
}

func arm(t Timer, after time.Duration) Action { return Action{Kind: ActArm, Timer: t, After: after} }

// timer handles a fired timer. A timer the current phase no longer waits
// for is ignored.
func (p *Policy) timer(t Timer) []Action {
	switch {
	case t == TimerPoll && p.phase <= grace:
		if p.phase == serving {
			return []Action{p.tick("sleep")}
		}
		return []Action{p.tick("")}
	case t == TimerLinger && p.lingering && p.phase == serving:
		return []Action{p.tick("task")}
	case t == TimerDrain && p.phase == draining:
		p.phase = grace
		cfg := p.core.cfg
		p.core.emit(Event{Kind: EventDrainDeadline, Worker: p.core.id, Count: len(p.core.executing)})
		acts := []Action{{Kind: ActCancelRunning}, arm(TimerGrace, graceOf(cfg))}
		if mutant.On(mutant.RunnerNoCancel) || mutant.On(mutant.DrainCancelLate) {
			acts = acts[1:]
		}
		return acts
	case t == TimerGrace && p.phase == grace:
		if mutant.On(mutant.ReleaseWaitsForHandlers) {
			return nil // the last handler to return closes (finished)
		}
		if mutant.On(mutant.DrainCancelLate) {
			return append([]Action{{Kind: ActCancelRunning}}, p.release()...)
		}
		return p.release()
	case t == TimerRetry && p.phase == releasing:
		return p.release()
	case t == TimerRetry && p.phase == closing:
		return []Action{p.call(CallShutdown)}
	}
	return nil
}

// finished hands a result to the core and decides whether to tick now.
// While serving, the first result starts a linger of ResultLinger, ended
// early when no job is left running; while backing off results wait for
// the backoff's tick; while draining, the last one ends the drain.
func (p *Policy) finished(r Result) []Action {
	if !(mutant.On(mutant.RunnerDropResults) && p.backingOff) {
		p.core.finished(r)
	}
	idle := len(p.core.executing) == 0
	switch {
	case p.phase == serving && p.backingOff:
		return nil
	case p.phase == serving && idle:
		return []Action{p.tick("task")}
	case p.phase == serving && !p.lingering:
		p.lingering = true
		return []Action{arm(TimerLinger, resultLinger)}
	case (p.phase == draining || p.phase == grace) && idle:
		return p.close()
	}
	return nil
}

// stop begins a graceful shutdown: no more reserving, lease maintenance or
// duties; running jobs get DrainTimeout to finish, without a transaction
// held open while they do.
func (p *Policy) stop() []Action {
	if p.phase != serving {
		return nil
	}
	p.core.beginShutdown()
	p.core.emit(Event{Kind: EventStopRequested, Worker: p.core.id})
	p.phase, p.lingering = draining, false
	if len(p.core.executing) == 0 {
		return p.close()
	}
	if mutant.On(mutant.RunnerDrainNoWait) {
		return p.timer(TimerDrain)
	}
	return []Action{arm(TimerDrain, p.core.cfg.DrainTimeout)}
}

// abandon gives the drain up: the drain deadline is now. A runner not
// stopped yet stops first; one past the deadline has nothing to give up.
func (p *Policy) abandon() []Action {
	var acts []Action
	if p.phase == serving {
		acts = p.stop()
	}
	if p.phase != draining {
		return acts
	}
	return append(acts, p.timer(TimerDrain)...)
}

// returned decides what follows a store call.
func (p *Policy) returned(in Input) []Action {
	switch in.Call {
	case CallTick:
		acts := p.cancelJobs(in.Cancel, CancelByJobPass)
		if len(in.Start) > 0 {
			acts = append(acts, Action{Kind: ActStart, Jobs: in.Start})
		}
		if p.core.dutiesPending() {
			return append(acts, p.call(CallDuties))
		}
		return append(acts, p.afterTick()...)
	case CallDuties:
		return append(p.startVacuum(), p.afterTick()...)
	case CallRelease:
		if in.Err == nil || errors.Is(in.Err, errShutDown) {
			return p.close()
		}
		if retry := p.retry(in.Err, EventReleaseAbandoned); retry != nil {
			return retry
		}
		return p.close() // Shutdown releases them too, or a leader rescues them
	case CallShutdown:
		if in.Err == nil || errors.Is(in.Err, errShutDown) {
			p.phase = exited
			return []Action{{Kind: ActExit}}
		}
		if retry := p.retry(in.Err, EventShutdownAbandoned); retry != nil {
			return retry
		}
		p.phase = exited
		return []Action{{Kind: ActExit, Err: fmt.Errorf("worker: record the shutdown: %w", in.Err)}}
	}
	panic(fmt.Sprintf("worker: runner policy got the return of unknown call %d", in.Call))
}

// afterTick waits for the next tick, or ends a drain that has nothing left.
func (p *Policy) afterTick() []Action {
	p.backingOff = p.core.failing()
	if p.phase != serving && len(p.core.executing) == 0 {
		return p.close()
	}
	if p.phase == serving {
		p.core.emit(Event{Kind: EventWaiting, Worker: p.core.id, Count: p.core.failures})
	}
	return []Action{arm(TimerPoll, p.core.nextPoll())}
}

// release gives up the jobs still running after the grace, or goes on to
// the shutdown when none is left.
func (p *Policy) release() []Action {
	if len(p.core.executing) == 0 {
		return p.close()
	}
	p.phase = releasing
	return []Action{p.call(CallRelease)}
}

// close records the shutdown.
func (p *Policy) close() []Action {
	p.phase, p.tries = closing, 0
	return []Action{p.call(CallShutdown)}
}

// retry schedules another try of a failed shutdown step after a backoff,
// or returns nil after ShutdownAttempts failures, reporting with an event
// of kind abandoned that the step was given up.
func (p *Policy) retry(err error, abandoned EventKind) []Action {
	p.tries++
	if p.tries < ShutdownAttempts && !mutant.On(mutant.RunnerShutdownNoRetry) {
		return []Action{arm(TimerRetry, errorBackoff(p.core.cfg.PollInterval, p.tries))}
	}
	p.core.emit(Event{Kind: abandoned, Worker: p.core.id, Count: p.tries, Err: err})
	p.tries = 0
	return nil
}
