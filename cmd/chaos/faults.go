package main

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
)

// faultKind is one kind of injected fault.
type faultKind int

const (
	faultKill      faultKind = iota // SIGKILL a worker, start it again a little later
	faultStop                       // SIGSTOP a worker past the dead threshold, then SIGCONT
	faultTerminate                  // pg_terminate_backend of worker connections
	faultDrain                      // SIGTERM a worker with jobs in flight, start it again once drained
	faultRestartPG                  // restart PostgreSQL
	faultKinds
)

// randomFaults are the kinds drawn at random; the PostgreSQL restart is
// planned apart.
const randomFaults = int(faultRestartPG)

var faultNames = [faultKinds]string{"SIGKILL + restart", "SIGSTOP past the dead threshold + SIGCONT", "pg_terminate_backend",
	"SIGTERM (drain) + restart", "PostgreSQL restart"}

// plannedFault is a fault due at an offset from the start of the chaos
// phase.
type plannedFault struct {
	at   time.Duration
	kind faultKind
}

// planFaults draws the faults of a chaos phase of length d: one every 0.8
// to 2.5 s until a second before the end, the first four a shuffle of
// kill, stop, terminate and drain so that each kind happens, and, if
// restartPG, one PostgreSQL restart between 35% and 60% of the phase.
func planFaults(rnd *clockrng.Rand, d time.Duration, restartPG bool) []plannedFault {
	first := []faultKind{faultKill, faultStop, faultTerminate, faultDrain}
	for i := len(first) - 1; i > 0; i-- {
		j := rnd.IntN(i + 1)
		first[i], first[j] = first[j], first[i]
	}
	var plan []plannedFault
	for at := rnd.DurationBetween(500*time.Millisecond, 1500*time.Millisecond); at < d-time.Second; at += rnd.DurationBetween(800*time.Millisecond, 2500*time.Millisecond) {
		kind := faultKind(rnd.IntN(randomFaults))
		if len(plan) < len(first) {
			kind = first[len(plan)]
		}
		plan = append(plan, plannedFault{at: at, kind: kind})
	}
	if restartPG {
		at := time.Duration(float64(d) * (0.35 + 0.25*rnd.Float64()))
		plan = append(plan, plannedFault{at: at, kind: faultRestartPG})
		slices.SortStableFunc(plan, func(a, b plannedFault) int { return cmp.Compare(a.at, b.at) })
	}
	return plan
}

// inject carries out one fault. A fault that finds no worker to act on
// (all stopped or down) is skipped.
func (r *run) inject(ctx context.Context, kind faultKind) error {
	switch kind {
	case faultKill:
		return r.killOne(ctx)
	case faultStop:
		return r.stopOne(ctx)
	case faultTerminate:
		return r.terminate(ctx)
	case faultDrain:
		return r.drainOne()
	case faultRestartPG:
		return r.restartPG(ctx)
	}
	return fmt.Errorf("unknown fault kind %d", kind)
}

// pick returns a random worker that runs, is not stopped and is not
// draining, or nil.
func (r *run) pick() *slot { return r.pickWhere(func(*slot) bool { return true }) }

// pickWhere is pick among the workers that also satisfy ok.
func (r *run) pickWhere(ok func(*slot) bool) *slot {
	var up []*slot
	for _, s := range r.fleet.slots {
		if s.alive() && !s.stopped && !s.expectExit && ok(s) {
			up = append(up, s)
		}
	}
	if len(up) == 0 {
		return nil
	}
	return up[r.rnd.IntN(len(up))]
}

// killOne kills the worker with the most jobs in flight (one time in
// four, any worker), so that crashes leave running rows to rescue.
func (r *run) killOne(ctx context.Context) error {
	s := r.pick()
	if s == nil {
		return nil
	}
	if r.rnd.Chance(0.75) {
		s = r.busiest()
	}
	if err := s.kill(); err != nil {
		return err
	}
	r.counts[faultKill]++
	r.logf("SIGKILL %s (life %d)", s.name, s.life)
	if err := r.crashed(ctx, s); err != nil {
		return err
	}
	s.restartAt = time.Now().Add(r.rnd.DurationBetween(300*time.Millisecond, 2*time.Second))
	return nil
}

// stopOne stops a worker long enough to be declared dead; one at a time,
// so that another stop becomes a termination of connections.
func (r *run) stopOne(ctx context.Context) error {
	for _, s := range r.fleet.slots {
		if s.stopped {
			return r.terminate(ctx)
		}
	}
	s := r.pick()
	if s == nil {
		return nil
	}
	if err := s.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	s.stopped = true
	s.contAt = time.Now().Add(r.o.deadAfter + r.rnd.DurationBetween(time.Second, 2500*time.Millisecond))
	r.counts[faultStop]++
	r.logf("SIGSTOP %s until %s", s.name, s.contAt.Format("15:04:05.000"))
	return nil
}

// busiest returns the running, unstopped worker with the most executions
// in flight according to its history log.
func (r *run) busiest() *slot {
	var best *slot
	most := -1
	for _, s := range r.fleet.slots {
		if !s.alive() || s.stopped || s.expectExit {
			continue
		}
		if n := s.inFlight(); n > most {
			best, most = s, n
		}
	}
	return best
}

// drainOne asks a worker to shut down gracefully while it has jobs in
// flight; tend starts it again once it has exited. Only a worker past its
// first moments: before the binary's main has set its handler, SIGTERM
// kills any process, which is the kernel's default and no drain.
func (r *run) drainOne() error {
	s := r.pickWhere((*slot).handlesSignals)
	if s == nil {
		return nil
	}
	s.expectExit, s.draining = true, true
	if err := s.signal(syscall.SIGTERM); err != nil {
		return err
	}
	r.counts[faultDrain]++
	r.logf("SIGTERM %s (life %d)", s.name, s.life)
	return nil
}

// terminate ends the database connections of one worker (its pool) or, one
// time in two, of every process of the run: pools, listeners, enqueuer.
func (r *run) terminate(ctx context.Context) error {
	var names []string
	if s := r.pick(); s != nil && r.rnd.Chance(0.5) {
		names = []string{r.fleet.appName(s)}
	} else {
		for _, s := range r.fleet.slots {
			names = append(names, r.fleet.appName(s))
		}
		names = append(names, "tickwork listen "+r.schema, enqueuerAppName(r.schema))
	}
	n, err := r.db.terminate(ctx, names)
	if err != nil {
		return err
	}
	r.counts[faultTerminate]++
	r.terminated += n
	r.logf("pg_terminate_backend: %d backends of %v", n, names)
	return nil
}

// restartPG runs the restart command, then waits until the database
// answers again.
func (r *run) restartPG(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(cctx, "sh", "-c", r.o.restartPG).CombinedOutput()
	if err != nil {
		return fmt.Errorf("restart PostgreSQL with %q: %v\n%s", r.o.restartPG, err, out)
	}
	if _, err := r.db.now(ctx); err != nil {
		return fmt.Errorf("after restarting PostgreSQL: %w", err)
	}
	r.counts[faultRestartPG]++
	r.pgRestart = time.Since(start)
	r.logf("PostgreSQL restarted in %v", r.pgRestart.Round(time.Millisecond))
	return nil
}

// crashed logs, at the database's time, that s died with all its state:
// its executions end there.
func (r *run) crashed(ctx context.Context, s *slot) error {
	t, err := r.db.now(ctx)
	if err != nil {
		return err
	}
	r.driverLog = append(r.driverLog, props.Event{Kind: props.Crashed, Time: t, Process: s.name})
	return nil
}
