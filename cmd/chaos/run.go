package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/worker"
)

// run is one chaos run: its processes, its faults and what it recorded.
type run struct {
	o      options
	out    io.Writer
	rnd    *clockrng.Rand
	schema string
	db     *driverDB
	fleet  *fleet
	hook   *hookServer
	enq    *enqueuer
	net    *netChaos // nil without -net-faults
	// netFigures are the network faults' detection and recovery times,
	// worked out once the run is over (checkNet).
	netFigures netFigures

	failover *failoverRun // -failover's cluster and figures; nil otherwise

	driverLog  []props.Event // events the driver logs itself (crashes)
	counts     [faultKinds]int
	terminated int           // backends ended by pg_terminate_backend
	pgRestart  time.Duration // how long the restart command took
	problems   []problem     // failures outside the history's properties
	chaosTime  time.Duration
	settleTime time.Duration
}

// problem is a failure the property checker cannot see in the history: a
// worker process that exited on its own, a graceful shutdown that failed,
// an enqueued job that is missing.
type problem struct {
	what   string
	detail string
}

func (r *run) logf(format string, args ...any) {
	if r.o.verbose {
		fmt.Fprintf(r.out, "%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
	}
}

func enqueuerAppName(schema string) string { return "chaos-" + schema + "-enqueue" }

// chaosPhase starts the workers and the enqueuer and injects the planned
// faults for the run's duration.
func (r *run) chaosPhase(ctx context.Context) error {
	for _, s := range r.fleet.slots {
		if err := r.fleet.start(s); err != nil {
			return err
		}
	}
	st, err := pg.Open(ctx, withAppName(r.o.databaseURL, enqueuerAppName(r.schema)), pg.Options{Schema: r.schema})
	if err != nil {
		return fmt.Errorf("open the enqueuer's store: %w", err)
	}
	defer st.Close()
	r.enq = &enqueuer{client: worker.NewClient(st, r.rnd.Child("ids")), hook: r.hook, rnd: r.rnd.Child("enqueue"), seed: r.o.seed}
	enqCtx, stopEnq := context.WithCancel(ctx)
	enqDone := make(chan struct{})
	go func() {
		defer close(enqDone)
		r.enq.run(enqCtx)
	}()
	defer func() { stopEnq(); <-enqDone }()
	if r.failover != nil {
		return r.failoverPhase(ctx)
	}

	plan := planFaults(r.rnd.Child("faults"), r.o.duration, r.o.restartPG != "")
	if r.net != nil {
		plan = nil // the network faults replace the others
	}
	start := time.Now()
	for time.Since(start) < r.o.duration {
		if err := r.tend(ctx); err != nil {
			return err
		}
		if r.net != nil {
			if err := r.tendNet(ctx, time.Since(start)); err != nil {
				return err
			}
		}
		if len(plan) > 0 && time.Since(start) >= plan[0].at {
			if err := r.inject(ctx, plan[0].kind); err != nil {
				return err
			}
			plan = plan[1:]
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	r.chaosTime = time.Since(start)
	if r.net != nil {
		return r.liftAll(ctx)
	}
	return nil
}

// tend continues stopped workers whose time has come, notices workers that
// exited on their own and starts again those due for a restart.
func (r *run) tend(ctx context.Context) error {
	now := time.Now()
	for _, s := range r.fleet.slots {
		if s.stopped && !now.Before(s.contAt) {
			if err := s.signal(syscall.SIGCONT); err != nil {
				return err
			}
			s.stopped = false
			r.logf("SIGCONT %s", s.name)
		}
		if s.draining && !s.alive() {
			if err := r.drained(ctx, s); err != nil {
				return err
			}
			s.draining, s.restartAt = false, now.Add(r.rnd.DurationBetween(100*time.Millisecond, time.Second))
		}
		if s.cmd != nil && !s.alive() && !s.expectExit {
			r.problems = append(r.problems, problem{
				what:   fmt.Sprintf("worker %s (life %d) exited on its own with status %d", s.name, s.life, s.exitCode()),
				detail: s.stderrTail(15)})
			s.expectExit = true
			if err := r.crashed(ctx, s); err != nil {
				return err
			}
			s.restartAt = now.Add(500 * time.Millisecond)
		}
		if !s.restartAt.IsZero() && !now.Before(s.restartAt) {
			if err := r.fleet.start(s); err != nil {
				return err
			}
			r.logf("started %s (life %d)", s.name, s.life)
		}
	}
	return nil
}

// drained checks how a worker SIGTERMed mid-run exited: 0 after a clean
// drain; anything else is a problem, and its executions end there.
func (r *run) drained(ctx context.Context, s *slot) error {
	if code := s.exitCode(); code != 0 {
		r.problems = append(r.problems, problem{what: fmt.Sprintf("worker %s (life %d) exited with status %d after SIGTERM", s.name, s.life, code), detail: s.stderrTail(15)})
		return r.crashed(ctx, s)
	}
	return nil
}

// quiesce stops the faults, wakes and restarts every worker, waits until
// no job is waiting or running, then shuts every worker down gracefully.
func (r *run) quiesce(ctx context.Context) error {
	start := time.Now()
	for _, s := range r.fleet.slots {
		if s.stopped {
			s.contAt = start
		}
		if !s.alive() && !s.restartAt.IsZero() {
			s.restartAt = start
		}
	}
	for {
		if err := r.tend(ctx); err != nil {
			return err
		}
		ok, n, err := r.db.settled(ctx, r.o.drainTimeout+time.Second)
		if ok && r.allRunning() {
			break
		}
		if time.Since(start) > r.o.settle {
			r.problems = append(r.problems, problem{what: fmt.Sprintf("jobs still waiting or running after %v of quiescence (%d rows, err %v)", r.o.settle, n, err)})
			break
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	r.settleTime = time.Since(start)
	return r.shutdownAll(ctx)
}

// allRunning reports whether every worker runs, neither stopped nor
// draining.
func (r *run) allRunning() bool {
	for _, s := range r.fleet.slots {
		if !s.alive() || s.stopped || s.expectExit {
			return false
		}
	}
	return true
}

// shutdownAll sends SIGTERM to every worker and waits for each to drain and
// exit 0. One that does not exit in time is killed; either failure is a
// problem and ends its executions in the history.
func (r *run) shutdownAll(ctx context.Context) error {
	for _, s := range r.fleet.slots {
		s.expectExit = true
		if err := s.signal(syscall.SIGTERM); err != nil {
			return err
		}
	}
	for _, s := range r.fleet.slots {
		select {
		case <-s.done:
		case <-time.After(r.o.drainTimeout + 30*time.Second):
			r.problems = append(r.problems, problem{what: fmt.Sprintf("worker %s did not exit after SIGTERM; killed", s.name), detail: s.stderrTail(15)})
			if err := s.kill(); err != nil {
				return err
			}
		}
		if err := r.drained(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// killAll kills whatever still runs, after an error ended the run early.
func (r *run) killAll() {
	for _, s := range r.fleet.slots {
		if s.alive() {
			_ = s.kill()
		}
	}
}

// removeWorkDir deletes the logs of a clean run made in a temporary
// directory.
func removeWorkDir(dir string) { _ = os.RemoveAll(dir) }
