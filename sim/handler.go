package sim

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/workerengine"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// The simulator draws what a handler does (exec.go) but not what the
// worker makes of it: when a modelled handler returns, the process's
// worker.Worker runs the attempt as worker.Run does (workerengine's
// Execute), and the handler registered for every queue plays the drawn
// outcome there. So the production path from a handler's return to the
// core's result runs under every seed: opening a sealed payload, a batch
// callback's read of its batch, panic recovery, the handler's timeout,
// the cause of a cancellation, output recording and sealing, and the
// decision an error carries.

// newWorker returns the worker.Worker of p's incarnation: its keys, the
// scenario's handler timeout, no telemetry. Its store is the client's:
// a callback reads its batch as the operator's client reads.
func (s *sim) newWorker(p *proc) (*worker.Worker, error) {
	clk := &execClock{Timerless: clockrng.Timerless{Why: "sim: a worker running an attempt inline waited on its clock"}, s: s, p: p}
	w, err := worker.New(clientStore{s}, worker.Options{Config: s.cfg, Clock: clk,
		Logger: slog.New(slog.DiscardHandler), MeterProvider: metricnoop.NewMeterProvider(), TracerProvider: tracenoop.NewTracerProvider(),
		Encryption: p.ring})
	if err != nil {
		return nil, err
	}
	for _, q := range s.cfg.Queues {
		if err := worker.Handle(w, q, s.playOutcome, worker.WithTimeout(s.sc.JobTimeout.D())); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// finishExec runs ex's attempt through p's worker now that its handler
// returns, and returns the result the core is given.
func (s *sim) finishExec(p *proc, ex *execution) engine.Result {
	s.returning = ex
	res := workerengine.Of(p.worker).Execute(ex.ctx, ex.row)
	s.returning = nil
	if ex.sealed != nil && res.Output != nil { // the worker sealed what the handler recorded
		s.record(&props.Event{Kind: props.Encrypted, Job: ex.row.ID, Process: p.name,
			Fields: []string{props.SealedOutput}, Clear: []string{string(ex.output())}})
	}
	return res
}

// playOutcome is every queue's handler: it does what startExec drew for
// the execution returning, once the worker opened its payload.
func (s *sim) playOutcome(ctx context.Context, job worker.Job[json.RawMessage]) error {
	ex := s.returning
	ex.playing = true // its run is over: its context is as it returned
	if job.Batch != nil {
		s.res.Marks.set(MarkCallbackReadBatch)
	}
	if ex.cancelled && !ex.ignoreCancel {
		return ctx.Err() // it returned as its context ended
	}
	switch ex.decision {
	case worker.Succeed:
		if ex.timedOutFirst {
			s.res.Marks.set(MarkSuccessPastTimeout)
		}
		return worker.RecordOutput(ctx, ex.output())
	case worker.Fail:
		return worker.FailJob(errors.New(ex.reason))
	case worker.Snoozed:
		return worker.Snooze(ex.snooze)
	}
	if ex.panics {
		panic("simulated")
	}
	return worker.RetryJob(errors.New(ex.reason))
}

// execClock is the worker's clock while it runs an attempt: the
// process's local time, and a handler timeout that has passed when the
// simulator's timeout event for the execution came (exec.go) before the
// handler's context ended otherwise.
type execClock struct {
	clockrng.Timerless // the worker waits on nothing while it runs an attempt inline
	s                  *sim
	p                  *proc
}

var _ clockrng.Clock = (*execClock)(nil)

func (c *execClock) Now() time.Time                  { return c.p.clock.read(c.s.now) }
func (c *execClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *execClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// WithTimeout returns the context the attempt runs under (attemptCtx).
func (c *execClock) WithTimeout(parent context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	ex := c.s.returning // the worker sets deadlines only in the attempt finishExec runs
	ctx := &attemptCtx{Context: parent, ex: ex}
	if ex.timedOutFirst {
		ctx.Context = context.WithoutCancel(parent) // the deadline ended it: a later end of the parent changes nothing
	}
	return ctx, func() {}
}

// attemptCtx is an attempt's context in the simulator, which runs the
// whole attempt at the handler's return: until the handler's function is
// called it is as it was when the handler started (a callback reads its
// batch then), from then on as it was when the handler returned. Its
// cause is its parent's unless the deadline came first (then the
// parent's cancellation is cut off, as a deadline's context keeps its
// own).
type attemptCtx struct {
	context.Context
	ex *execution
}

// returned reports whether the attempt is past its handler's start.
func (c *attemptCtx) returned() bool { return c.ex.playing || c.ex.doneAtStart }

func (c *attemptCtx) Done() <-chan struct{} {
	switch {
	case !c.returned():
		return nil
	case c.ex.timedOutFirst:
		return closedDone
	}
	return c.Context.Done()
}

func (c *attemptCtx) Err() error {
	switch {
	case !c.returned():
		return nil
	case c.ex.timedOutFirst:
		return context.DeadlineExceeded
	}
	return c.Context.Err()
}

var closedDone = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

func (c *execClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return c.WithTimeout(parent, c.Until(d))
}
