package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestEnqueueAfter drives enqueue -after and -run-anyway, jobs show of a
// waiting job, and the cancel of a parent cancelling its child.
func TestEnqueueAfter(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != exitOK {
			t.Fatalf("worker %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr)
		}
		return strings.TrimSpace(stdout)
	}
	enqueue := func(extra ...string) string {
		return run(cmdArgs([]string{"enqueue"}, db, append([]string{"-queue", "mail", "-payload", "{}"}, extra...)...)...)
	}
	a, b := enqueue(), enqueue()
	child := enqueue("-after", a+","+b)
	out := run(cmdArgs([]string{"jobs", "show"}, db, child)...)
	if !regexp.MustCompile(`(?m)^status:\s+waiting$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^waits:\s+for its parents to complete: `+a+` \(available\), `+b+` \(available\)$`).MatchString(out) {
		t.Errorf("jobs show of a waiting job:\n%s", out)
	}
	var shown struct{ Job jobJSON }
	if err := json.Unmarshal([]byte(run(cmdArgs([]string{"jobs", "show"}, db, "-format", "json", child)...)), &shown); err != nil ||
		len(shown.Job.Parents) != 2 || shown.Job.Parents[0].String() != a {
		t.Errorf("jobs show -format json of a waiting job: %+v, %v", shown.Job, err)
	}
	anyway := enqueue("-after", a, "-run-anyway")
	run(cmdArgs([]string{"jobs", "cancel"}, db, a)...)
	if j := getJob(t, st, ulid.MustParse(child)); j.Status != store.Cancelled || j.FailedReason != "parent "+a+" cancelled" {
		t.Errorf("the child of a cancelled parent: %s, reason %q", j.Status, j.FailedReason)
	}
	if j := getJob(t, st, ulid.MustParse(anyway)); j.Status != store.Available {
		t.Errorf("the child running anyway after its parent was cancelled: %s", j.Status)
	}

	unknown := ulid.Make().String()
	code, _, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}", "-after", unknown)...)
	if code == exitOK || !strings.Contains(stderr, "parent "+unknown+" does not exist") {
		t.Errorf("enqueue -after an unknown job: exit %d, stderr:\n%s", code, stderr)
	}
	for _, args := range [][]string{{"-run-anyway"}, {"-after", "nope"}} {
		code, _, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, append([]string{"-queue", "mail", "-payload", "{}"}, args...)...)...)
		if code != exitUsage {
			t.Errorf("enqueue %v: exit %d, want a usage error; stderr:\n%s", args, code, stderr)
		}
	}
}
