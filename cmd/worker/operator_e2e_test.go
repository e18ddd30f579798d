package main

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// testOperatorBasics drives the built binary through what needs no queue
// state: version, help on standard output, and a refused concurrency that
// used to exhaust memory.
func testOperatorBasics(t *testing.T, bin string) {
	code, stdout, stderr := runProc(t, bin, "version")
	if code != exitOK || !strings.Contains(stdout, "github.com/tickwork/tickwork") || !strings.Contains(stdout, runtime.Version()) {
		t.Errorf("worker version: exit %d, stdout:\n%s\nstderr:\n%s\nwant the module path and Go version", code, stdout, stderr)
	}
	// The commit is recorded only when the build could see the repository
	// (-buildvcs); what the toolchain recorded must be printed.
	recorded, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(recorded)) {
		if _, rev, ok := strings.Cut(strings.TrimSpace(line), "vcs.revision="); ok && !strings.Contains(stdout, rev) {
			t.Errorf("worker version does not name the commit %s:\n%s", rev, stdout)
		}
	}
	for _, args := range [][]string{{"help"}, {"run", "-h"}, {"jobs", "show", "-help"}} {
		code, stdout, stderr := runProc(t, bin, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "Usage") && !strings.Contains(stdout, "\nUsage:") || stderr != "" {
			t.Errorf("worker %s: exit %d, stderr %q, stdout:\n%s\nwant 0 and the usage on stdout only", args, code, stderr, stdout)
		}
	}
	code, _, stderr = runProc(t, bin, cmdArgs([]string{"run"}, dbArgs(t, "unused"), "-concurrency", "1000000000")...)
	if want := `-concurrency "1000000000": out of range: want 1 to 10000`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("worker run -concurrency 1000000000: exit %d, stderr:\n%s\nwant 2 and %q", code, stderr, want)
	}
}

// testEnqueueThroughTheBinary enqueues a payload larger than a command
// line can carry through standard input, and checks that a 10,000-byte
// queue name is blamed on -queue and not echoed in full.
func testEnqueueThroughTheBinary(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	big := `{"blob": "` + strings.Repeat("x", 600<<10) + `"}`
	p := startProcStdin(t, bin, "worker enqueue", strings.NewReader(big), cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", "-", "-in", "1h")...)
	if code := p.wait(); code != exitOK {
		t.Fatalf("enqueue -payload - of 600 KiB: exit %d, stderr:\n%s", code, p.stderr.String())
	}
	j := getJob(t, st, ulid.MustParseStrict(strings.TrimSpace(p.stdout.String())))
	if len(j.Payload) < 600<<10 || j.Status != store.Scheduled || j.ScheduledAt.Sub(j.CreatedAt) != time.Hour {
		t.Errorf("stored a %s job with %d payload bytes, scheduled %v after creation", j.Status, len(j.Payload), j.ScheduledAt.Sub(j.CreatedAt))
	}
	code, _, stderr := runProc(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", strings.Repeat("q", 10000), "-payload", "{nope")...)
	if code != exitUsage || !strings.Contains(stderr, "-queue") || strings.Contains(stderr, "-payload") || len(stderr) > 300 {
		t.Errorf("enqueue with a 10,000-byte queue name: exit %d, stderr (%d bytes):\n%.400s", code, len(stderr), stderr)
	}
}
