package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A schedule on 30 February never fires. worker run refuses it at start,
// from the flag and from TICKWORK_SCHEDULE, naming it: it used to be
// accepted, and the leader enqueued a run of it at every pass, forever.
func testScheduleThatNeverFires(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	const spec = "feb30|0 0 0 30 2 *|noop|{}"
	for _, how := range []struct {
		name string
		args []string
		env  []string
	}{
		{"flag", cmdArgs([]string{"run"}, db, append([]string{"-schedule", spec}, fastRun...)...), nil},
		{"environment", cmdArgs([]string{"run"}, db, fastRun...), []string{"TICKWORK_SCHEDULE=" + spec}},
	} {
		p := startProcEnv(t, bin, "worker run ("+how.name+")", how.env, how.args...)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.signal(syscall.SIGTERM)
			p.wait()
			t.Fatalf("%s: worker run accepted a schedule on 30 February and enqueued %d jobs in 10 s", how.name, len(listJobs(t, st)))
		}
		stderr := p.stderr.String()
		if p.code != exitUsage || !strings.Contains(stderr, `schedule "feb30"`) || !strings.Contains(stderr, "0 0 0 30 2 *") ||
			!strings.Contains(stderr, "never fires") {
			t.Errorf("%s: exit %d, want %d and an error naming the schedule; stderr:\n%s", how.name, p.code, exitUsage, stderr)
		}
	}
	if jobs := listJobs(t, st); len(jobs) != 0 {
		t.Errorf("%d jobs enqueued, want none", len(jobs))
	}
}
