package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestQueuesCommands drives enqueue -priority and the queues commands
// against PostgreSQL: what they print, what they store, and the clear
// refusal of bad input.
func TestQueuesCommands(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	// run returns standard output when the command succeeds and standard
	// error when it is refused.
	run := func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != want {
			t.Fatalf("worker %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, want, stderr)
		}
		if want != exitOK {
			return stderr
		}
		return stdout
	}
	out := run(exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}", "-priority", "4")...)
	id := strings.TrimSpace(out)
	if j := getJob(t, st, ulid.MustParseStrict(id)); j.Priority != 4 {
		t.Errorf("enqueue -priority 4 stored priority %d", j.Priority)
	}
	if out := run(exitOK, cmdArgs([]string{"jobs", "show"}, db, id)...); !regexp.MustCompile(`(?m)^priority:\s+4$`).MatchString(out) {
		t.Errorf("jobs show does not print the priority:\n%s", out)
	}
	if out := run(exitUsage, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}", "-priority", "10")...); !strings.Contains(out, "-priority") {
		t.Errorf("enqueue -priority 10 did not name the flag:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "pause"}, db, "mail")...)
	run(exitOK, cmdArgs([]string{"queues", "set-limit"}, db, "mail", "3")...)
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "mail") || !strings.Contains(lines[1], "paused since") || !strings.Contains(lines[1], " 3 ") {
		t.Fatalf("queues list after pause and set-limit 3:\n%s", out)
	}
	var listed []queueJSON
	out = run(exitOK, cmdArgs([]string{"queues", "list"}, db, "-format", "json")...)
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || !listed[0].Paused || listed[0].Limit != 3 || listed[0].Counts[store.Available] != 1 {
		t.Errorf("queues list -format json:\n%s", out)
	}
	run(exitOK, cmdArgs([]string{"queues", "resume"}, db, "mail")...)
	run(exitOK, cmdArgs([]string{"queues", "set-limit"}, db, "mail", "none")...)
	var rows []store.QueueStats
	err := st.InTx(context.Background(), func(tx store.Tx) (err error) { rows, err = tx.ListQueues(context.Background()); return err })
	if err != nil || len(rows) != 1 || rows[0].Controlled() {
		t.Fatalf("after resume and set-limit none: %+v, %v", rows, err)
	}
	for _, bad := range [][]string{{"set-limit", "mail", "-1"}, {"set-limit", "mail"}, {"pause", ""}, {"frobnicate"}} {
		if out := run(exitUsage, cmdArgs([]string{"queues", bad[0]}, db, bad[1:]...)...); len(out) == 0 || len(out) > 2000 {
			t.Errorf("queues %q: message of %d bytes:\n%s", bad, len(out), out)
		}
	}
}
