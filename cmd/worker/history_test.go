package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestHistoryCommands drives queues set-history and what queues list
// prints of it against PostgreSQL: a job of a queue set to none leaves
// no row when it completes, and bad input is refused saying why.
func TestHistoryCommands(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mail", "forget"}, `history "forget": want none or keep`},
		{[]string{"bad\x00", "none"}, "queue"},
		{[]string{"mail"}, "want 2 arguments"},
	} {
		if _, stderr := runWant(t, exitUsage, cmdArgs([]string{"queues", "set-history"}, db, c.args...)...); !strings.Contains(stderr, c.want) {
			t.Errorf("set-history %q: stderr does not say %q:\n%s", c.args, c.want, stderr)
		}
	}
	out, _ := runWant(t, exitOK, cmdArgs([]string{"queues", "set-history"}, db, "mail", "none")...)
	if !strings.Contains(out, `queue "mail" deletes each job's row at its completion`) {
		t.Errorf("set-history none printed %q", out)
	}
	if out, _ := runWant(t, exitOK, cmdArgs([]string{"queues", "list"}, db)...); !strings.Contains(out, "HISTORY") || !strings.Contains(out, "none") {
		t.Errorf("queues list does not show the history:\n%s", out)
	}
	if out, _ := runWant(t, exitOK, cmdArgs([]string{"queues", "list"}, db, "-format", "json")...); !strings.Contains(out, `"history": "none"`) {
		t.Errorf("queues list -format json does not show the history:\n%s", out)
	}
	out, _ = runWant(t, exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}")...)
	id := ulid.MustParseStrict(strings.TrimSpace(out))
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Tx) error { // a worker completes it, as the engine records it
		w, err := reserveOne(ctx, tx, "mail")
		if err != nil {
			return err
		}
		_, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{id}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.InTx(ctx, func(tx store.Tx) error { _, err := tx.GetJob(ctx, id); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("job %s completed on a queue without history: %v, want it gone", id, err)
	}
	out, _ = runWant(t, exitOK, cmdArgs([]string{"queues", "set-history"}, db, "mail", "keep")...)
	if !strings.Contains(out, `queue "mail" keeps the rows of its completed jobs`) {
		t.Errorf("set-history keep printed %q", out)
	}
}
