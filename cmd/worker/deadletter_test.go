package main

import (
	"context"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestDeadLetterCommands drives queues set-dead-letter, jobs redrive and
// what list and show print of them against PostgreSQL, with the clear
// refusal of bad input.
func TestDeadLetterCommands(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	run := func(want int, args ...string) (string, string) { t.Helper(); return runWant(t, want, args...) }
	for _, c := range []struct{ args []string }{
		{[]string{"mail", "mail"}},
		{[]string{"mail", "bad\x00"}},
		{[]string{"mail"}},
	} {
		_, stderr := run(exitUsage, cmdArgs([]string{"queues", "set-dead-letter"}, db, c.args...)...)
		if !strings.Contains(stderr, "dead-letter") && !strings.Contains(stderr, "want 2 arguments") {
			t.Errorf("set-dead-letter %q: stderr does not say why:\n%s", c.args, stderr)
		}
	}
	if _, stderr := run(exitUsage, cmdArgs([]string{"queues", "set-dead-letter"}, db, "mail", "mail")...); !strings.Contains(stderr, "cannot dead-letter to itself") {
		t.Errorf("set-dead-letter to itself:\n%s", stderr)
	}
	if _, stderr := run(exitUsage, cmdArgs([]string{"jobs", "redrive"}, db)...); !strings.Contains(stderr, "-queue is required") {
		t.Errorf("jobs redrive without -queue:\n%s", stderr)
	}
	out, _ := run(exitOK, cmdArgs([]string{"queues", "set-dead-letter"}, db, "mail", "mail.dead")...)
	if !strings.Contains(out, `queue "mail" dead-letters to "mail.dead"`) {
		t.Errorf("set-dead-letter printed %q", out)
	}
	if out, _ := run(exitOK, cmdArgs([]string{"queues", "list"}, db)...); !strings.Contains(out, "DEAD-LETTER") || !strings.Contains(out, "mail.dead") {
		t.Errorf("queues list does not show the dead-letter queue:\n%s", out)
	}
	out, _ = run(exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}")...)
	id := ulid.MustParseStrict(strings.TrimSpace(out))
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Tx) error { // a worker fails it for good, as the engine records it
		w, err := reserveOne(ctx, tx, "mail")
		if err != nil {
			return err
		}
		if err := tx.FailJob(ctx, w, id, "bounced"); err != nil {
			return err
		}
		_, err = tx.DeadLetterJob(ctx, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := run(exitOK, cmdArgs([]string{"jobs", "show"}, db, id.String())...); !strings.Contains(out, "dead-lettered from") || !strings.Contains(out, "mail.dead") {
		t.Errorf("jobs show of a dead letter:\n%s", out)
	}
	out, stderr := run(exitOK, cmdArgs([]string{"jobs", "redrive"}, db, "-queue", "mail.dead")...)
	next := ulid.MustParseStrict(strings.TrimSpace(out))
	if !strings.Contains(stderr, "1 jobs sent back") {
		t.Errorf("jobs redrive stderr: %q", stderr)
	}
	if j := getJob(t, st, next); j.Queue != "mail" || j.Status != store.Available || j.Attempt != 1 {
		t.Errorf("redriven attempt: %s", store.FormatJob(j))
	}
	if j := getJob(t, st, id); j.NextAttemptID != next || j.Queue != "mail.dead" {
		t.Errorf("dead row after the redrive: %s", store.FormatJob(j))
	}
	if out, _ := run(exitOK, cmdArgs([]string{"jobs", "redrive"}, db, "-queue", "mail.dead")...); out != "" {
		t.Errorf("a second redrive sent back %q", out)
	}
	if _, stderr := run(exitOK, cmdArgs([]string{"jobs", "redrive"}, db, "-queue", "mail.deadd")...); !strings.Contains(stderr, `no job is on queue "mail.deadd" (a mistyped name?)`) {
		t.Errorf("a redrive of a queue without jobs does not say so:\n%s", stderr)
	}
	out, _ = run(exitOK, cmdArgs([]string{"queues", "set-dead-letter"}, db, "mail", "none")...)
	if !strings.Contains(out, "no dead-letter queue") {
		t.Errorf("set-dead-letter none printed %q", out)
	}
}
