package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// Run registers the worker and processes jobs until ctx is done, then shuts
// down gracefully: it stops reserving, waits up to DrainTimeout for running
// jobs (ticking to record their results and heartbeat, never holding a
// transaction open while it waits), cancels the contexts of the jobs still
// running, releases those that do not return promptly, and marks the worker
// shut down and gives up its lease. A running job that is cancelled
// (Client.Cancel) has its handler's context cancelled with cause
// ErrJobCancelled, at once when the store's notification arrives and
// within about 1.2 poll intervals when it is lost. Every goroutine Run
// started has ended when it returns, so a handler that ignores its
// context delays Run (but not the release of its job). Every one of these
// decisions is engine.Policy's; Run only carries out its actions.
//
// Store errors while running are retried with backoff and never end Run.
// Run returns an error if it cannot start (no handler for a configured
// queue, Run called twice) or if the final shutdown could not be recorded;
// a leader then rescues the worker's jobs once its heartbeat is stale.
func (w *Worker) Run(ctx context.Context) error {
	cfg, handlers, err := w.start()
	if err != nil {
		return err
	}
	defer w.ended()
	if w.lanes == 1 {
		return w.runLane(ctx, cfg, handlers, w.rand, w.observe, w.lanesCtl[0])
	}
	return w.runLanes(ctx, cfg, handlers)
}

// ended records that Run returned: AddQueue and RemoveQueue refuse.
func (w *Worker) ended() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runEnded = true
}

// runLane runs one core with cfg until ctx is done and it has shut down,
// as Run describes.
func (w *Worker) runLane(ctx context.Context, cfg Config, handlers map[string]*handler, rand *clockrng.Rand, observe engine.ObserverFunc, ctl *laneCtl) error {
	core, err := engine.NewCore(w.st, cfg, rand, observe)
	if err != nil {
		close(ctl.exited)
		return err
	}
	l := &loop{w: w, policy: engine.NewPolicy(core), handlers: handlers, done: make(chan engine.Result, cfg.MaxConcurrent),
		ctxs: engine.NewContexts(ctx), stop: ctx.Done(), abandon: w.abandon,
		vacuumDone: make(chan error, 1), exec: newExecutors(), ctl: ctl, draining: map[string][]chan struct{}{}}
	defer l.ctxs.Carry(engine.Action{Kind: engine.ActExit})
	// The subscription outlives ctx until the policy exits, so that a
	// cancel during the drain still reaches its handler at once.
	listenCtx, stopListen := context.WithCancel(context.WithoutCancel(ctx))
	defer stopListen()
	if l.notes, err = w.st.Listen(listenCtx); err != nil {
		w.log.Warn("no store notifications: polling only", "error", err.Error())
	}
	notes := l.notes

	l.carry(ctx, l.policy.Step(engine.Input{Kind: engine.InStarted}))
	for !l.policy.Exited() {
		l.next(ctx)
	}
	close(l.ctl.exited) // no more requests are taken: senders skip this lane
	l.drainedAll()
	stopListen()
	if notes != nil {
		for range notes { // the store closes it once the subscription ended
		}
	}
	for l.outstanding > 0 { // handlers released at shutdown, still running
		<-l.done
		l.outstanding--
	}
	l.exec.close()
	if l.vacuuming { // cancelled with ctx: it returns promptly
		<-l.vacuumDone
	}
	return l.exitErr
}

// start freezes the handler set and works out the queues to reserve from.
func (w *Worker) start() (Config, map[string]*handler, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return Config{}, nil, errors.New("worker: Run called twice")
	}
	w.started = true
	cfg := w.coreConfig()
	for _, q := range cfg.Queues {
		if _, ok := w.handlers[q]; !ok {
			return Config{}, nil, fmt.Errorf("worker: queue %q is configured but has no handler", q)
		}
	}
	w.queues = slices.Compact(slices.Sorted(slices.Values(cfg.Queues)))
	w.lanesCtl = make([]*laneCtl, w.lanes)
	for i := range w.lanesCtl {
		w.lanesCtl[i] = newLaneCtl()
	}
	return cfg, maps.Clone(w.handlers), nil
}

// loop is Run's state: it carries out the policy's actions with
// goroutines, timers and the store's listener. Only Run's goroutine
// touches it.
type loop struct {
	w           *Worker
	policy      *engine.Policy
	handlers    map[string]*handler
	done        chan engine.Result // each job goroutine sends its result once
	outstanding int                // job goroutines that have not sent yet
	notes       <-chan store.Notification
	stop        <-chan struct{} // Run's ctx.Done(), nil once the stop was stepped
	abandon     <-chan struct{} // Options.Abandon's Done, nil once stepped
	timers      [engine.NumTimers]*clock.Timer
	ctxs        *engine.Contexts // the handlers' contexts
	exec        *executors       // the goroutines the jobs run on
	exitErr     error
	vacuuming   bool       // a vacuum goroutine has not sent yet
	vacuumDone  chan error // it sends its result once
	ctl         *laneCtl   // AddQueue's and RemoveQueue's requests
	// draining holds, per removed queue, the RemoveQueue calls waiting
	// for its drain (closed at engine.ActQueueDrained, or at exit).
	draining map[string][]chan struct{}
}

// next waits for one input and steps the policy with it.
func (l *loop) next(ctx context.Context) {
	var in engine.Input
	select {
	case <-l.stop:
		l.stop = nil
		in = engine.Input{Kind: engine.InStop}
	case <-l.abandon:
		l.abandon = nil
		in = engine.Input{Kind: engine.InAbandon}
	case <-l.timerC(engine.TimerPoll):
		in = engine.Input{Kind: engine.InTimer, Timer: engine.TimerPoll}
	case <-l.timerC(engine.TimerLinger):
		in = engine.Input{Kind: engine.InTimer, Timer: engine.TimerLinger}
	case <-l.timerC(engine.TimerDrain):
		in = engine.Input{Kind: engine.InTimer, Timer: engine.TimerDrain}
	case <-l.timerC(engine.TimerGrace):
		in = engine.Input{Kind: engine.InTimer, Timer: engine.TimerGrace}
	case <-l.timerC(engine.TimerRetry):
		in = engine.Input{Kind: engine.InTimer, Timer: engine.TimerRetry}
	case r := <-l.done:
		l.outstanding--
		l.ctxs.Finished(r.JobID)
		in = engine.Input{Kind: engine.InJobFinished, Result: r}
	case err := <-l.vacuumDone:
		l.vacuuming = false
		in = engine.Input{Kind: engine.InVacuumEnded, Err: err}
	case r := <-l.ctl.reqs:
		if r.drained != nil {
			l.draining[r.in.Queue] = append(l.draining[r.in.Queue], r.drained)
		}
		in = r.in
	case n, ok := <-l.notes:
		if !ok {
			l.notes = nil
			return
		}
		in = engine.Input{Kind: engine.InNotification, Note: n}
	}
	if in.Kind == engine.InTimer {
		l.timers[in.Timer] = nil
	}
	l.carry(ctx, l.policy.Step(in))
}

// drainedAll releases the RemoveQueue calls still waiting once the lane
// stopped: its shutdown drained every queue.
func (l *loop) drainedAll() {
	for q, ds := range l.draining {
		for _, d := range ds {
			close(d)
		}
		delete(l.draining, q)
	}
}

// timerC is the channel of an armed timer, nil (never ready) otherwise.
func (l *loop) timerC(t engine.Timer) <-chan time.Time {
	if l.timers[t] == nil {
		return nil
	}
	return l.timers[t].C
}

// carry does what the policy asked, in order; a store call's return is
// stepped at once, so calls run one after another on this goroutine.
// Calls run under Run's ctx (a stop interrupts them) unless the policy
// detached them from it (Action.Detached: every call after the stop).
func (l *loop) carry(ctx context.Context, acts []engine.Action) {
	for len(acts) > 0 {
		a := acts[0]
		acts = acts[1:]
		switch a.Kind {
		case engine.ActCall:
			acts = l.policy.Step(l.do(ctx, a)) // engine.ActCall is the last action
		case engine.ActStart:
			for i := range a.Jobs {
				l.startJob(&a.Jobs[i])
			}
		case engine.ActArm:
			if t := l.timers[a.Timer]; t != nil {
				t.Stop()
			}
			l.timers[a.Timer] = l.w.clock.Timer(a.After)
		case engine.ActVacuum:
			l.startVacuum(ctx, a.Timeout)
		case engine.ActQueueDrained:
			for _, d := range l.draining[a.Queue] {
				close(d)
			}
			delete(l.draining, a.Queue)
		case engine.ActCancelRunning:
			l.ctxs.Carry(a)
			l.policy.ReportCancelled()
		case engine.ActCancelJobs:
			l.ctxs.Carry(a)
			l.policy.ReportJobsCancelled(a)
		case engine.ActExit:
			l.exitErr = a.Err
			l.ctxs.Carry(a)
			for _, t := range l.timers {
				if t != nil {
					t.Stop()
				}
			}
		}
	}
}

// do makes one store call under the deadline the policy gave it, recording
// the tick metrics.
func (l *loop) do(ctx context.Context, a engine.Action) engine.Input {
	if a.Detached {
		ctx = context.WithoutCancel(ctx)
	}
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		if a.Detached { // the shutdown's bound is on the local clock (ShutdownBound)
			ctx, cancel = l.w.clock.WithTimeout(ctx, a.Timeout)
		} else {
			// Real time, not the worker's clock: the deadline bounds a
			// wait on the network, which a test's clock (moved by hand
			// while a real database answers) does not model. The
			// simulator honours it in simulated time.
			ctx, cancel = context.WithTimeout(ctx, a.Timeout)
		}
		defer cancel()
	}
	if a.Wake != "" {
		l.w.inst.wakeup(ctx, a.Wake)
	}
	start := l.w.clock.Now()
	in := l.policy.Do(ctx, a, start)
	if a.Call == engine.CallTick {
		l.w.inst.tickDuration.Record(ctx, float64(l.w.clock.Since(start).Microseconds())/1000)
	}
	return in
}

// startVacuum runs the policy's vacuum on a goroutine of its own, so that
// the loop goes on ticking (and renewing the lease) while it runs. It runs
// under Run's ctx: a shutdown cancels it rather than wait for a VACUUM of
// a large table; the next leader vacuums after the interval. It is given
// up after timeout (Config.VacuumTimeout), in real time as a store call.
func (l *loop) startVacuum(ctx context.Context, timeout time.Duration) {
	l.vacuuming = true
	go func() {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		l.vacuumDone <- l.policy.Vacuum(ctx)
	}()
}

// startJob runs job in a goroutine of its own. job points into the slice
// Tick returned, which nothing else uses, so it is not copied to the heap
// once per job.
func (l *loop) startJob(job *store.Job) {
	h, ok := l.handlers[job.Queue]
	if !ok { // the core reserves only handled queues; this is a safety net
		h = &handler{queue: job.Queue, run: func(context.Context, store.Job) error {
			return FailJob(fmt.Errorf("no handler for queue %q on this worker", job.Queue))
		}}
	}
	ctx := l.ctxs.Start(job.ID)
	l.outstanding++
	l.exec.run(func() { l.done <- l.w.execute(ctx, h, *job) })
}
