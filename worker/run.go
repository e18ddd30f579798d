package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tickwork/tickwork/store"
)

// Run registers the worker and processes jobs until ctx is done, then shuts
// down gracefully: it stops reserving, waits up to DrainTimeout for running
// jobs (ticking to record their results and heartbeat, never holding a
// transaction open while it waits), cancels the contexts of the jobs still
// running, releases those that do not return promptly, and marks the worker
// shut down and gives up its lease. Every goroutine Run started has ended
// when it returns, so a handler that ignores its context delays Run (but
// not the release of its job).
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
	core, err := NewCore(w.st, cfg, w.rand, ObserverFunc(w.observe))
	if err != nil {
		return err
	}
	jobCtx, hardStop := context.WithCancel(context.WithoutCancel(ctx))
	defer hardStop()
	l := &loop{w: w, core: core, handlers: handlers, done: make(chan Result, cfg.MaxConcurrent), jobCtx: jobCtx, hardStop: hardStop}

	listenCtx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	if l.notes, err = w.st.Listen(listenCtx); err != nil {
		w.log.Warn("no store notifications: polling only", "error", err.Error())
	}
	notes := l.notes

	l.serve(ctx)
	stopListen()
	if notes != nil {
		for range notes { // the store closes it once the subscription ended
		}
	}
	l.notes = nil
	err = l.shutdown(context.WithoutCancel(ctx))
	for l.outstanding > 0 {
		l.finished(<-l.done)
	}
	return err
}

// start freezes the handler set and works out the queues to reserve from.
func (w *Worker) start() (Config, map[string]*handler, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return Config{}, nil, errors.New("worker: Run called twice")
	}
	w.started = true
	cfg := w.cfg
	if len(cfg.Queues) == 0 {
		cfg.Queues = slices.Sorted(maps.Keys(w.handlers))
	}
	for _, q := range cfg.Queues {
		if _, ok := w.handlers[q]; !ok {
			return Config{}, nil, fmt.Errorf("worker: queue %q is configured but has no handler", q)
		}
	}
	return cfg, maps.Clone(w.handlers), nil
}

// loop is Run's state; only Run's goroutine touches it.
type loop struct {
	w           *Worker
	core        *Core
	handlers    map[string]*handler
	done        chan Result // each job goroutine sends its result once
	outstanding int         // job goroutines that have not sent yet
	notes       <-chan store.Notification
	jobCtx      context.Context
	hardStop    context.CancelFunc
}

// serve ticks and waits until ctx is done.
func (l *loop) serve(ctx context.Context) {
	for ctx.Err() == nil {
		l.tick(ctx)
		if reason := l.wait(ctx, l.core.NextPoll(), !l.core.Failing(), nil); reason != "" {
			l.w.inst.wakeup(ctx, reason)
		}
	}
}

// tick runs one core iteration and starts the jobs it hands out. Its errors
// reach the logs as EventStoreError; NextPoll backs off after them.
func (l *loop) tick(ctx context.Context) {
	start := l.w.clock.Now()
	res, _ := l.core.Tick(ctx, start)
	l.w.inst.tickDuration.Record(ctx, float64(l.w.clock.Since(start).Microseconds())/1000)
	for i := range res.Start {
		l.startJob(&res.Start[i])
	}
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
	l.outstanding++
	go func() {
		l.done <- l.w.execute(l.jobCtx, h, *job)
	}()
}

// wait blocks for up to d and returns why it woke: "sleep" (the timer),
// "task" (a job finished) or "notification"; "" when ctx is done or until
// fires. When not interruptible (backing off after errors) only the timer
// ends the wait, though finished jobs are still collected.
func (l *loop) wait(ctx context.Context, d time.Duration, interruptible bool, until <-chan time.Time) string {
	timer := l.w.clock.Timer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-until:
			return ""
		case <-timer.C:
			return "sleep"
		case r := <-l.done:
			l.finished(r)
			if interruptible {
				if !l.collect(ctx, until) {
					return ""
				}
				return "task"
			}
		case n, ok := <-l.notes:
			if !ok {
				l.notes = nil
			} else if interruptible && l.wants(n) {
				return "notification"
			}
		}
	}
}

// wants reports whether a notification gives the next tick something to do.
func (l *loop) wants(n store.Notification) bool {
	if n.Channel == store.ChannelStepdown {
		return true
	}
	return len(l.core.executing) < l.core.cfg.MaxConcurrent && slices.Contains(l.core.cfg.Queues, n.Queue)
}

func (l *loop) finished(r Result) {
	l.outstanding--
	l.core.Finished(r)
}

// resultLinger is how long collect waits, after a job finished, for the
// other running jobs to finish too before the next tick.
const resultLinger = time.Millisecond

// collect takes the results of the jobs that finish within resultLinger,
// so that one tick records them all and refills their slots together: a
// tick costs far more than short jobs do, and ticking after each result
// would reserve one job at a time. It returns as soon as no job runs, so
// short jobs wait for nothing; a long job delays the next tick by at most
// resultLinger. It blocks on the results rather than yielding in a loop:
// spinning took half of a busy worker's CPU away from the database on a
// two-core machine. It reports false if ctx ended or until fired
// meanwhile, as wait's "" does.
func (l *loop) collect(ctx context.Context, until <-chan time.Time) bool {
	if l.outstanding == 0 {
		return true
	}
	linger := l.w.clock.Timer(resultLinger)
	defer linger.Stop()
	for l.outstanding > 0 {
		select {
		case r := <-l.done:
			l.finished(r)
		case <-linger.C:
			return true
		case <-until:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// shutdown drains, releases what did not return, and shuts the core down.
func (l *loop) shutdown(ctx context.Context) error {
	l.core.BeginShutdown()
	cfg := l.core.cfg
	deadline := l.w.clock.Timer(cfg.DrainTimeout)
	defer deadline.Stop()
	l.drain(ctx, deadline.C)
	if len(l.core.executing) > 0 {
		l.w.log.Warn("drain timeout reached: cancelling running jobs", "jobs", len(l.core.executing), "drain_timeout", cfg.DrainTimeout)
		l.hardStop()
		grace := l.w.clock.Timer(min(cfg.DrainTimeout/10, time.Second))
		l.drain(ctx, grace.C)
		grace.Stop()
		if err := l.retry(ctx, func() error { return l.core.Release(ctx, l.core.Running()) }); err != nil {
			l.w.log.Error("could not release jobs at shutdown; a leader will rescue them", "error", err.Error())
		}
	}
	err := l.retry(ctx, func() error { return l.core.Shutdown(ctx) })
	l.hardStop()
	if err != nil {
		return fmt.Errorf("worker: record the shutdown: %w", err)
	}
	return nil
}

// drain records results as jobs finish, ticking (which also heartbeats)
// until no job is counted running or until fires.
func (l *loop) drain(ctx context.Context, until <-chan time.Time) {
	for len(l.core.executing) > 0 {
		if l.wait(ctx, l.core.NextPoll(), true, until) == "" {
			return
		}
		l.tick(ctx)
	}
}

// shutdownAttempts bounds the retries of the final store writes.
const shutdownAttempts = 5

// retry runs fn until it succeeds or shutdownAttempts failed, backing off
// between attempts while still collecting finished jobs.
func (l *loop) retry(ctx context.Context, fn func() error) error {
	var err error
	for i := 1; i <= shutdownAttempts; i++ {
		if err = fn(); err == nil || errors.Is(err, ErrShutDown) {
			return err
		}
		if i < shutdownAttempts {
			l.wait(ctx, ErrorBackoff(l.core.cfg.PollInterval, i), false, nil)
		}
	}
	return err
}
