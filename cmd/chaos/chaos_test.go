package main

import (
	"strings"
	"testing"
)

// A run of process faults reports as a problem every fault kind it did not
// inject, a PostgreSQL restart it did not ask for (or one it asked for
// and did not get) and every kind of outcome it did not exercise, so that
// make chaos-ci fails on a run that proved nothing. A run that exercised
// everything reports none.
func TestRunReportsWhatItDidNotExercise(t *testing.T) {
	all := figures{enqueued: 50, completed: 30, retried: 5, failedByDecision: 2, declaredDead: 1}
	for _, tc := range []struct {
		name      string
		restartPG string
		counts    [faultKinds]int
		figs      figures
		want      []string
	}{
		{"everything", "", [faultKinds]int{3, 2, 2, 1, 0}, all, nil},
		{"everything and the restart asked for", "pg_ctlcluster 16 main restart", [faultKinds]int{3, 2, 2, 1, 1}, all, nil},
		{"no kill, no drain", "", [faultKinds]int{0, 2, 2, 0, 0}, all,
			[]string{"no SIGKILL + restart fault was injected", "no SIGTERM (drain) + restart fault was injected"}},
		{"a restart nobody asked for", "", [faultKinds]int{1, 1, 1, 1, 1}, all, []string{"PostgreSQL was restarted 1 times; the run asked for 0"}},
		{"the restart asked for never came", "restart", [faultKinds]int{1, 1, 1, 1, 0}, all, []string{"PostgreSQL was restarted 0 times; the run asked for 1"}},
		{"no retry, nobody dead", "", [faultKinds]int{1, 1, 1, 1, 0}, figures{enqueued: 5, completed: 5, failedByDecision: 1},
			[]string{"the run exercised nothing retried, nothing declared dead"}},
		{"nothing at all", "", [faultKinds]int{1, 1, 1, 1, 0}, figures{},
			[]string{"the run exercised nothing enqueued, nothing completed, nothing retried, nothing failed by decision, nothing declared dead"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{o: options{restartPG: tc.restartPG}, counts: tc.counts}
			r.checkExercised(tc.figs)
			var got []string
			for _, p := range r.problems {
				got = append(got, p.what)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d starting %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d is %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
}

// Runs of network faults and of failovers inject other faults and check
// them elsewhere: the process faults' list does not apply to them.
func TestOtherRunsAreNotAskedForProcessFaults(t *testing.T) {
	for name, r := range map[string]*run{"net faults": {net: &netChaos{}}, "failover": {failover: &failoverRun{}}} {
		r.checkExercised(figures{})
		if len(r.problems) != 0 {
			t.Errorf("%s: problems %+v, want none", name, r.problems)
		}
	}
}
