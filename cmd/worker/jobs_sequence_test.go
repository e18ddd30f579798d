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

// TestJobsSkipReleasesASequence drives jobs show on a halted sequence
// (what its jobs wait for), jobs skip and its refusals.
func TestJobsSkipReleasesASequence(t *testing.T) {
	ctx := context.Background()
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	run := func(want int, args ...string) (string, string) { t.Helper(); return runWant(t, want, args...) }
	head, next, w := ulid.Make(), ulid.Make(), ulid.Make()
	err := st.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.InsertJobs(ctx, []store.NewJob{{ID: head, Queue: "ship", Payload: json.RawMessage(`{}`), SequenceKey: "order-7"},
			{ID: next, Queue: "ship", Payload: json.RawMessage(`{}`), SequenceKey: "order-7"}}); err != nil {
			return err
		}
		return tx.RegisterWorker(ctx, w)
	})
	if err == nil {
		err = st.InTx(ctx, func(tx store.Tx) error { _, err := tx.Reserve(ctx, w, []string{"ship"}, 10); return err })
	}
	out, _ := run(exitOK, cmdArgs([]string{"jobs", "show"}, db, next.String())...)
	if !regexp.MustCompile(`(?m)^waits:\s+for its sequence's head: job `+head.String()+` \(running\) of sequence order-7 comes first$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^sequence:\s+order-7, place 2$`).MatchString(out) {
		t.Errorf("jobs show of the second job while the head runs:\n%s", out)
	}
	if err == nil {
		err = st.InTx(ctx, func(tx store.Tx) error { return tx.FailJob(ctx, w, head, "carrier refused") })
	}
	if err != nil {
		t.Fatal(err)
	}
	out, _ = run(exitOK, cmdArgs([]string{"jobs", "show"}, db, next.String())...)
	if !strings.Contains(out, "halted by job "+head.String()+" (failed: carrier refused); release it with 'worker jobs retry") {
		t.Errorf("jobs show of the second job behind a failed head:\n%s", out)
	}
	out, _ = run(exitOK, cmdArgs([]string{"jobs", "show"}, db, head.String())...)
	if !regexp.MustCompile(`(?m)^waits:\s+for an operator: it halts sequence order-7; release it with .worker jobs retry `).MatchString(out) {
		t.Errorf("jobs show of the failed head:\n%s", out)
	}
	out, _ = run(exitOK, cmdArgs([]string{"jobs", "skip"}, db, head.String())...)
	if out != "job "+head.String()+" skipped: sequence order-7 goes on\n" {
		t.Errorf("jobs skip printed %q", out)
	}
	if out, _ = run(exitOK, cmdArgs([]string{"jobs", "show"}, db, next.String())...); strings.Contains(out, "waits:") {
		t.Errorf("jobs show of the second job after the skip still says it waits:\n%s", out)
	}
	_, stderr := run(exitFailure, cmdArgs([]string{"jobs", "skip"}, db, head.String())...)
	if !strings.Contains(stderr, "it was skipped already, so it halts no sequence") {
		t.Errorf("jobs skip twice: stderr %q", stderr)
	}
}

// TestEnqueueSequence: worker enqueue -sequence puts the job in a
// sequence, -sequence-continues without it is a usage error.
func TestEnqueueSequence(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "ship", "-payload", "{}",
		"-sequence", "order-9", "-sequence-continues")...)
	if code != exitOK {
		t.Fatalf("enqueue -sequence: exit %d; stderr:\n%s", code, stderr)
	}
	id, err := parseJobID(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if s := getJob(t, st, id).Sequence; s.Key != "order-9" || s.Pos != 1 || !s.Continues {
		t.Errorf("enqueued job's sequence %+v, want order-9 at place 1, continuing on failure", s)
	}
	code, _, stderr = runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "ship", "-payload", "{}", "-sequence-continues")...)
	if code != exitUsage || !strings.Contains(stderr, "-sequence-continues without -sequence") {
		t.Errorf("enqueue -sequence-continues alone: exit %d; stderr:\n%s", code, stderr)
	}
}
