package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/history"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// proc is one simulated worker process: a machine with its own clock that
// runs incarnations of the real worker core one after another.
type proc struct {
	idx  int
	name string // stable across incarnations: "w0", "w1", ...
	inc  int    // incarnation; bumped when the process dies or exits
	regs int    // worker rows registered so far (for names)

	core   *engine.Core   // nil while the process is down
	policy *engine.Policy // the runner's policy over core
	store  *faultStore
	clock  localClock
	// act is the store call carry hands to call, and callAct, made once,
	// runs it: a closure per call was an allocation on most events.
	act     engine.Action
	callAct func()
	rnd     [numFaultKinds]*clockrng.Rand // per fault kind, so kinds do not perturb each other
	// silentVacuums draws the half-open fault on vacuums, apart from the
	// transactions' draws of it (rnd[HalfOpen]), so that seeds whose
	// vacuums never go silent run as they did before it reached them.
	silentVacuums *clockrng.Rand

	busy         bool // inside a core call (maybe parked on store latency)
	waitingTx    bool // the call waits for its interleaved transaction to return
	inCall       bool // the coroutine is running a call's body
	next         func() (time.Duration, bool)
	stop         func()
	yield        func(time.Duration) bool
	body         func()
	stalledUntil time.Duration
	deferred     []*event

	timerGen [engine.NumTimers]uint64 // each runner timer's live generation
	execs    []*execution
	// ctxs are the incarnation's handler contexts, the runner's own
	// (engine.Contexts); stopCancel ends the context they were made from,
	// the incarnation's stop request, as a signal ends Run's.
	ctxs       *engine.Contexts
	stopCtx    context.Context // the calls the policy does not detach run under it
	stopCancel context.CancelFunc
	stops      engine.StopRequests // judges the incarnation's signals, as cmd/worker does
	deadline   time.Duration       // true time the store call in progress gives up at on store latency (0: never)
	// callDeadline: true time the deadline the policy gave the call in
	// progress (Action.Timeout) ends it (0: none); a half-open call waits
	// for it.
	callDeadline time.Duration
	silent       bool           // the store no longer answers this incarnation
	stopRnd      *clockrng.Rand // draws the signals that follow the first

	shutdownDue bool               // a shutdown waits for the next job to start, so it has one in flight
	stopAsked   bool               // asked to stop in a call (leaderStop): the shutdown begins as the call ends
	draining    bool               // graceful shutdown in progress
	cancelled   bool               // the runner cancelled its job context: handlers start cancelled
	history     history.Translator // this incarnation's events, as the checker reads them
	vacuumErr   error              // what the vacuum in progress returns at evVacuumDone
	// removedQueues are the queues this incarnation's runner was told to
	// remove and not told to add back, in name order (queuechurn.go).
	removedQueues []string
	ring          *encryption.Ring // the keys of this incarnation (encryption.go)
	worker        *worker.Worker   // runs each attempt as its handler returns (handler.go)
}

// newProc sets up process i: its clock (drift drawn once) and fault sources.
func (s *sim) newProc(i int) *proc {
	p := &proc{idx: i, name: fmt.Sprintf("w%d", i)}
	p.silentVacuums = s.master.Child("proc/vacuum-half-open").ChildN(p.name, i)
	var ppm int64
	if s.on(Drift) {
		limit := int64(s.rate(Drift) * 1e6)
		ppm = int64(s.procRand(p, Drift).IntN(int(2*limit+1))) - limit
		s.count(Drift)
	}
	p.clock = newLocalClock(s.sc.start().Add(s.procRand(p, ClockJump).DurationBetween(-time.Hour, time.Hour)), 0, ppm)
	p.store = newFaultStore(s, p)
	p.callAct = func() { s.storeCall(p, p.act) }
	return p
}

// start sets up the run: workers, their fault timers, the workload and the
// phases.
func (s *sim) start() {
	if !s.tr.quiet { // a quiet trace drops them: spare their formatting
		for _, line := range s.sc.Lines() {
			s.tr.raw(line)
		}
	}
	s.outages = s.drawOutages()
	for i := range s.sc.Workers {
		p := s.newProc(i)
		s.procs = append(s.procs, p)
		s.tr.printf(0, p.name, "machine clock %s drift %+dppm", stamp(p.clock.read(0)), p.clock.ppm)
		s.after(s.procRand(p, Crash).DurationBetween(0, s.sc.PollInterval.D()), &event{kind: evStart, w: i, inc: p.inc})
		for _, k := range []FaultKind{Crash, Stall, ClockJump, Shutdown, QueueChurn} {
			s.armProcFault(p, k)
		}
	}
	s.drawKeys()
	s.enqueueInitial()
	s.armGlobalFault(Burst, evBurst)
	s.armGlobalFault(Cancel, evCancel)
	s.armGlobalFault(Deletes, evDelete)
	s.armGlobalFault(Bulk, evBulk)
	s.armGlobalFault(QueueControl, evQueueControl)
	s.armGlobalFault(QueueRate, evQueueRate)
	s.armFirstKeyLimit()
	s.armFirstDeadLetter()
	s.armFirstHistory()
	s.armGlobalFault(Sequences, evSequenceRelease)
	s.armGlobalFault(PauseAll, evPauseAll)
	if s.interleaving() {
		s.il.trips.drawLeaderStop(s)
	}
	s.at(s.sc.Chaos.D(), &event{kind: evQuiesce, w: -1})
}

// procFaultEvent maps a per-process fault kind to its timer's event.
var procFaultEvent = map[FaultKind]eventKind{Crash: evCrash, Stall: evStall, ClockJump: evJump, Shutdown: evShutdown, QueueChurn: evQueueChurn}

// armProcFault schedules p's next fault of kind k: rate per minute, spaced
// uniformly around the mean so that no transcendental function (whose last
// bit may differ between machines) enters the draw.
func (s *sim) armProcFault(p *proc, k FaultKind) {
	if !s.on(k) || s.phase != chaos {
		return
	}
	s.after(spacing(s.procRand(p, k), s.rate(k)), &event{kind: procFaultEvent[k], w: p.idx})
}

func (s *sim) armGlobalFault(k FaultKind, kind eventKind) {
	if !s.on(k) || s.phase != chaos {
		return
	}
	s.after(spacing(s.clientRand(k), s.rate(k)), &event{kind: kind, w: -1})
}

// procRand is p's source for faults of kind k, made when first drawn
// from: most kinds are off in a seed. A child's sequence depends only on
// its label, so when it is made changes nothing.
func (s *sim) procRand(p *proc, k FaultKind) *clockrng.Rand {
	if p.rnd[k] == nil {
		if s.procRoots[k] == nil {
			s.procRoots[k] = s.master.Child("proc/" + k.String())
		}
		p.rnd[k] = s.procRoots[k].ChildN(p.name, p.idx)
	}
	return p.rnd[k]
}

func (s *sim) clientRand(k FaultKind) *clockrng.Rand {
	if s.globalRnd[k] == nil {
		s.globalRnd[k] = s.master.Child("global/" + k.String())
	}
	return s.globalRnd[k]
}

// spacing draws the wait before the next of ratePerMinute events.
func spacing(r *clockrng.Rand, ratePerMinute float64) time.Duration {
	mean := time.Duration(float64(time.Minute) / max(ratePerMinute, 0.01))
	return r.DurationBetween(mean/10, 2*mean-mean/10)
}

// startProc starts a new incarnation of p's worker core.
func (s *sim) startProc(p *proc, inc int) {
	if p.core != nil || inc != p.inc {
		return
	}
	rnd := s.master.Child("core").ChildN(p.name, p.inc)
	core, err := engine.NewCore(p.store, s.cfg, rnd, &procObserver{s, p})
	if err != nil {
		s.stop(nil, fmt.Errorf("seed %d: %s: new core: %w", s.sc.Seed, p.name, err))
		return
	}
	p.core, p.policy, p.removedQueues = core, engine.NewPolicy(core), nil
	p.draining, p.shutdownDue, p.stopAsked, p.cancelled, p.silent = false, false, false, false, false
	p.stopCtx, p.stopCancel = context.WithCancel(s.ctx)
	p.ctxs, p.stops = engine.NewContexts(p.stopCtx), engine.StopRequests{}
	p.history = history.Translator{}
	s.startKeys(p)
	if p.worker, err = s.newWorker(p); err != nil {
		s.stop(nil, fmt.Errorf("seed %d: %s: new worker: %w", s.sc.Seed, p.name, err))
		return
	}
	s.tr.printf(s.now, p.name, "start incarnation %d", p.inc)
	if p.inc > 0 {
		s.record(&props.Event{Kind: props.Restarted, Process: p.name})
	}
	s.step(p, engine.Input{Kind: engine.InStarted})
}

// down ends p's incarnation: every event it scheduled goes stale.
func (s *sim) down(p *proc, restartAfter time.Duration) {
	p.execs = nil
	p.core, p.policy = nil, nil
	p.stopCancel()
	p.ctxs, p.stopCtx, p.stopCancel = nil, nil, nil
	p.inc++
	p.draining, p.shutdownDue, p.stopAsked = false, false, false
	if s.phase == quiescence {
		restartAfter = min(restartAfter, s.sc.PollInterval.D())
	}
	if s.phase != done {
		s.after(restartAfter, &event{kind: evStart, w: p.idx, inc: p.inc})
	}
}

// crash kills p at once: all in-memory state is lost.
func (s *sim) crash(p *proc) {
	defer s.armProcFault(p, Crash)
	if p.core == nil || s.phase != chaos {
		return
	}
	s.count(Crash)
	id := p.core.ID()
	s.tr.printf(s.now, p.name, "CRASH as %s with %d jobs running", s.names.worker(id), len(p.execs))
	s.record(&props.Event{Kind: props.Crashed, Process: p.name, Worker: id})
	s.down(p, s.procRand(p, Crash).DurationBetween(500*time.Millisecond, 10*time.Second))
}

// stall pauses p: no timer fires and no job returns until it resumes.
// Lengths are drawn short of the lease, past it, and past the dead
// threshold, a third each.
func (s *sim) stall(p *proc) {
	defer s.armProcFault(p, Stall)
	if p.core == nil || s.phase != chaos {
		return
	}
	r := s.procRand(p, Stall)
	ttl, dead := s.sc.LeaseTTL.D(), s.sc.DeadThreshold.D()+s.sc.Heartbeat.D()
	var d time.Duration
	switch r.IntN(3) {
	case 0:
		d = r.DurationBetween(100*time.Millisecond, ttl)
	case 1:
		d = r.DurationBetween(ttl, dead)
	default:
		d = r.DurationBetween(dead, 2*dead)
	}
	s.count(Stall)
	p.stalledUntil = (s.now + d).Truncate(time.Microsecond)
	s.tr.printf(s.now, p.name, "STALL for %v", d.Truncate(time.Microsecond))
	s.record(&props.Event{Kind: props.Stalled, Process: p.name})
	s.at(p.stalledUntil, &event{kind: evStallEnd, w: p.idx, inc: p.inc})
}

func (s *sim) stallEnd(p *proc) {
	if p.stalledUntil == 0 {
		return
	}
	p.stalledUntil = 0
	s.tr.printf(s.now, p.name, "resumes")
	s.record(&props.Event{Kind: props.Resumed, Process: p.name})
	s.release(p)
}

// jump moves p's local clock; timers are monotonic and do not move.
func (s *sim) jump(p *proc) {
	defer s.armProcFault(p, ClockJump)
	if s.phase != chaos {
		return
	}
	r := s.procRand(p, ClockJump)
	by := r.DurationBetween(100*time.Millisecond, 3*s.sc.Heartbeat.D()).Truncate(time.Microsecond)
	if r.Chance(0.5) {
		by = -by
	}
	s.count(ClockJump)
	p.clock.jump(s.now, by)
	s.tr.printf(s.now, p.name, "clock jumps %v", by)
}

// errText shortens an error for the trace: ULIDs are replaced by names.
// An interleaved run's connection errors come from the network (a broken
// pipe or the server's farewell, whichever the client reads first), so
// the trace names their class only; nothing else depends on their text.
func (s *sim) errText(err error) string {
	if s.interleaving() && errors.Is(err, store.ErrUnavailable) {
		return "store unavailable"
	}
	return s.names.replaceIDs(err.Error())
}

// workerOf returns the process whose current core acts as id, if any.
func (s *sim) workerOf(id ulid.ULID) *proc {
	if id.IsZero() {
		return nil
	}
	for _, p := range s.procs {
		if p.core != nil && p.core.ID() == id {
			return p
		}
	}
	return nil
}
