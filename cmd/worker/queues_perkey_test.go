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

// TestQueuesSetLimitPerKey drives set-limit -per-key (the flag before or
// after the arguments), its listing, and jobs show saying that a job
// waits for its key's limit.
func TestQueuesSetLimitPerKey(t *testing.T) {
	ctx := context.Background()
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != exitOK {
			t.Fatalf("worker %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	if out := run(cmdArgs([]string{"queues", "set-limit"}, db, "mail", "1", "-per-key")...); !strings.Contains(out, "limited to 1 running jobs per partition key") {
		t.Errorf("queues set-limit mail 1 -per-key printed %q", out)
	}
	run(cmdArgs([]string{"queues", "set-limit"}, db, "mail", "5")...)
	out := run(cmdArgs([]string{"queues", "list"}, db)...)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "PER-KEY") ||
		!regexp.MustCompile(`^mail\s+active\s+5\s+1\s+-`).MatchString(lines[1]) {
		t.Fatalf("queues list after set-limit 5 and set-limit 1 -per-key:\n%s", out)
	}
	var listed []queueJSON
	out = run(cmdArgs([]string{"queues", "list"}, db, "-format", "json")...)
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || listed[0].KeyLimit != 1 || listed[0].Limit != 5 {
		t.Errorf("queues list -format json:\n%s", out)
	}

	ids := []ulid.ULID{ulid.Make(), ulid.Make()}
	w := ulid.Make()
	err := st.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.InsertJobs(ctx, []store.NewJob{{ID: ids[0], Queue: "mail", Payload: json.RawMessage(`{}`), PartitionKey: "t42"},
			{ID: ids[1], Queue: "mail", Payload: json.RawMessage(`{}`), PartitionKey: "t42"}}); err != nil {
			return err
		}
		return tx.RegisterWorker(ctx, w)
	})
	// A Store learns of a per-key limit another process set from its
	// first reservation, which takes nothing of that queue (reserve_keyed.go).
	for try := 0; try < 2 && err == nil; try++ {
		err = st.InTx(ctx, func(tx store.Tx) error { _, err := tx.Reserve(ctx, w, []string{"mail"}, 10); return err })
	}
	if err != nil {
		t.Fatal(err)
	}
	waiting := ids[1]
	if getJob(t, st, waiting).Status != store.Available {
		waiting = ids[0]
	}
	out = run(cmdArgs([]string{"jobs", "show"}, db, waiting.String())...)
	if !regexp.MustCompile(`(?m)^waits:\s+for its key's limit: 1 of its queue's jobs with key t42 run, the per-key limit is 1$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^partition key:\s+t42$`).MatchString(out) {
		t.Errorf("jobs show of a job held by its key's limit:\n%s", out)
	}
	run(cmdArgs([]string{"queues", "set-limit"}, db, "-per-key", "mail", "none")...)
	if out := run(cmdArgs([]string{"jobs", "show"}, db, waiting.String())...); strings.Contains(out, "waits:") {
		t.Errorf("jobs show after the per-key limit was removed still says it waits:\n%s", out)
	}
}
