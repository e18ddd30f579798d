package main

import (
	"fmt"
	"strings"
)

// checkExercised adds a problem for each thing a run of process faults
// was meant to exercise and did not: a fault kind never injected (the
// plan's first four are one of each, so only a phase too short for them
// or a fault that found no worker leaves one out), a PostgreSQL restart
// other than the one asked for, or no enqueue, completion, retry,
// failure by decision or worker declared dead. A run that exercised
// nothing would otherwise pass for a clean one. Runs of network faults and
// failovers inject other faults and check those (netreport.go, recovery.go).
func (r *run) checkExercised(f figures) {
	if r.net != nil || r.failover != nil {
		return
	}
	for _, k := range []faultKind{faultKill, faultStop, faultTerminate, faultDrain} {
		if r.counts[k] == 0 {
			r.problems = append(r.problems, problem{what: fmt.Sprintf("no %s fault was injected in a %v chaos phase", faultNames[k], r.o.duration)})
		}
	}
	asked := 0
	if r.o.restartPG != "" {
		asked = 1
	}
	if n := r.counts[faultRestartPG]; n != asked {
		r.problems = append(r.problems, problem{what: fmt.Sprintf("PostgreSQL was restarted %d times; the run asked for %d (-restart-pg-cmd %q)", n, asked, r.o.restartPG)})
	}
	var none []string
	for _, c := range []struct {
		name string
		n    int
	}{{"enqueued", f.enqueued}, {"completed", f.completed}, {"retried", f.retried}, {"failed by decision", f.failedByDecision}, {"declared dead", f.declaredDead}} {
		if c.n == 0 {
			none = append(none, c.name)
		}
	}
	if len(none) > 0 {
		r.problems = append(r.problems, problem{what: "the run exercised nothing " + strings.Join(none, ", nothing ")})
	}
}
