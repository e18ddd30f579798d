package main

import (
	"context"
	"fmt"
	"time"
)

// recovery follows the cluster and the workers after one failover fault.
type recovery struct {
	r         *run
	f         failoverFault
	old       *autoctl     // the primary before the fault
	oldStart  time.Time    // when its postmaster had started
	curStart  time.Time    // when the postmaster of f.next started
	restarted bool         // a stopped node was started again (true for the other faults)
	hurried   time.Time    // the last checkpoint asked for
	performed <-chan error // a planned failover's command; nil once its outcome is taken
}

// step tends the workers, polls their /readyz, starts a stopped node again
// when its time is up, and notes the primary, the first job and the
// cluster's health; done once all three are there and every worker is
// ready.
func (rc *recovery) step(ctx context.Context) (done bool, err error) {
	r, c, f := rc.r, rc.r.failover.c, &rc.f
	if err := r.tend(ctx); err != nil {
		return false, err
	}
	r.failover.ready.poll(r.fleet.slots)
	if rc.refused() {
		return true, nil
	}
	if !rc.restarted && rc.old.exited() && time.Since(f.at) >= r.failover.stop {
		rc.restarted = true
		if err := c.run(rc.old, "run", "--pgdata", rc.old.pgdata); err != nil {
			return false, err
		}
		r.logf("%s started again", rc.old.name)
	}
	rc.notePrimary(ctx)
	if f.next != "" && f.firstJob == 0 {
		f.firstJob = r.firstJobAfter(ctx, c.node(f.next), f.at, f.at.Add(f.promoted))
	}
	if f.next != "" && f.healthy == 0 && rc.restarted {
		rc.noteHealth(ctx)
	}
	return f.firstJob > 0 && f.healthy > 0 && r.failover.ready.allReady(r.fleet.slots), nil
}

// refused reports whether the planned failover's command has failed (the
// monitor refused it: nothing to follow); it is then recorded as a problem.
func (rc *recovery) refused() bool {
	select {
	case err := <-rc.performed: // never ready while nil
		rc.performed = nil
		rc.r.performFailed(err)
		return err != nil
	default:
		return false
	}
}

// notePrimary records a node taking writes that is not the old
// primary as it was: another node, or the old one restarted. A later one
// replaces it: after a kill -9 the keeper may restart the old node before
// the monitor promotes the other.
func (rc *recovery) notePrimary(ctx context.Context) {
	f := &rc.f
	n, started := rc.r.failover.c.primaryNow(ctx)
	if n == nil || (n == rc.old && !started.After(rc.oldStart)) || (n.name == f.next && started.Equal(rc.curStart)) {
		return
	}
	f.next, f.promoted, f.firstJob, rc.curStart = n.name, time.Since(f.at), 0, started
	f.path = append(f.path, fmt.Sprintf("%s +%v", n.name, ms(f.promoted)))
	rc.r.logf("%s takes writes after %v", n.name, ms(f.promoted))
}

// noteHealth records when the monitor has a primary and a secondary again,
// hurrying the primary's checkpoints meanwhile.
func (rc *recovery) noteHealth(ctx context.Context) {
	c, f := rc.r.failover.c, &rc.f
	states, err := c.states(ctx)
	switch {
	case err == nil && c.healthy(states):
		f.healthy = time.Since(f.at)
		rc.r.logf("cluster healthy again after %v: %v", ms(f.healthy), states)
	case time.Since(rc.hurried) > 2*time.Second:
		c.hurryCheckpoint(ctx, c.node(f.next))
		rc.hurried = time.Now()
	}
}

// giveUp records a recovery that did not finish in time as a problem.
func (rc *recovery) giveUp() {
	f := rc.f
	rc.r.problems = append(rc.r.problems, problem{what: fmt.Sprintf("%s: no full recovery after %v: primary %q after %v, first job after %v, healthy after %v, workers ready %v",
		failoverNames[f.kind], ms(time.Since(f.at)), f.next, f.promoted, f.firstJob, f.healthy, rc.r.failover.ready.allReady(rc.r.fleet.slots))})
}
