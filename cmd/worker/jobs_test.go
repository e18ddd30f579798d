package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// runAttempt makes a fresh worker reserve the available job of queue and
// fail it with reason, then retries it unless last; it returns the worker
// and the next attempt's id.
func runAttempt(t *testing.T, st store.Store, queue, reason string, last bool) (worker, next ulid.ULID) {
	t.Helper()
	rnd := clockrng.NewRandFromOS()
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		worker = clockrng.NewULID(now, rnd)
		if err := tx.RegisterWorker(ctx, worker); err != nil {
			return err
		}
		jobs, err := tx.Reserve(ctx, worker, []string{queue}, 1)
		if err != nil || len(jobs) != 1 {
			return fmt.Errorf("reserve: %v %v", jobs, err)
		}
		if err := tx.FailJob(ctx, worker, jobs[0].ID, reason); err != nil || last {
			return err
		}
		j, err := tx.ScheduleRetry(ctx, jobs[0].ID, clockrng.NewULID(now, rnd), 0)
		next = j.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return worker, next
}

// testJobsShowAndList checks what an operator reads: one job in full with
// its whole attempt chain, by either id form, and the list newest first,
// as JSON, filtered to the jobs failed for good, and one line per job
// whatever a queue name or reason holds.
func testJobsShowAndList(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	first := insertJobs(t, st, "chain", `{"order": 7, "items": ["a", "b"]}`)[0]
	longReason := "HTTP 503 from https://example.com/hook: " + strings.Repeat("upstream busy; ", 10) + "END"
	w0, second := runAttempt(t, st, "chain", "attempt zero failed", false)
	w1, third := runAttempt(t, st, "chain", longReason, false)
	w2, _ := runAttempt(t, st, "chain", "gave up & stopped", true)
	evil := insertJobs(t, st, "q\x1b[31m\tx\nline", `{}`)[0]

	out := mustRun(t, bin, cmdArgs([]string{"jobs", "show"}, db, second.String())...)
	for _, want := range []string{longReason, `"order": 7`, "attempt zero failed", "gave up", "{}",
		first.String(), second.String(), third.String(), w0.String(), w1.String(), w2.String(),
		"-> ", uuid.UUID(second).String()} {
		if !strings.Contains(out, want) {
			t.Errorf("jobs show lacks %q:\n%s", want, out)
		}
	}
	if byUUID := mustRun(t, bin, cmdArgs([]string{"jobs", "show"}, db, uuid.UUID(second).String())...); byUUID != out {
		t.Errorf("jobs show by UUID printed:\n%s\nwant the same as by ULID:\n%s", byUUID, out)
	}
	var shown struct {
		Job      jobJSON   `json:"job"`
		Attempts []jobJSON `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, bin, cmdArgs([]string{"jobs", "show", "-format", "json"}, db, third.String())...)), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Job.ID != third || len(shown.Attempts) != 3 || shown.Attempts[0].ID != first || shown.Attempts[2].StartedBy != w2 {
		t.Errorf("jobs show -format json = %+v, want job %s with 3 attempts from %s", shown, third, first)
	}

	lines := strings.Split(strings.TrimSuffix(mustRun(t, bin, cmdArgs([]string{"jobs", "list"}, db)...), "\n"), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[1], evil.String()) || !strings.HasPrefix(lines[4], first.String()) {
		t.Errorf("jobs list printed:\n%s\nwant a header and 4 lines, newest first", strings.Join(lines, "\n"))
	}
	if table := strings.Join(lines, "\n"); strings.ContainsAny(table, "\x1b\t") || !strings.Contains(table, `"q\x1b[31m\tx\nline"`) {
		t.Errorf("jobs list did not escape the queue name:\n%q", table)
	}
	oldest := mustRun(t, bin, cmdArgs([]string{"jobs", "list"}, db, "-oldest", "-limit", "1")...)
	if !strings.Contains(oldest, first.String()) {
		t.Errorf("jobs list -oldest -limit 1 printed:\n%s", oldest)
	}
	var listed []jobJSON
	raw := mustRun(t, bin, cmdArgs([]string{"jobs", "list"}, db, "-format", "json", "-status", "failed", "-final")...)
	if err := json.Unmarshal([]byte(raw), &listed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"failed_reason": "gave up & stopped"`) {
		t.Errorf("jobs list -format json escaped the reason:\n%s", raw)
	}
	var ids []ulid.ULID
	for _, j := range listed {
		ids = append(ids, j.ID)
	}
	if !slices.Equal(ids, []ulid.ULID{third}) || listed[0].FailedReason != "gave up & stopped" {
		t.Errorf("jobs list -status failed -final -format json = %+v, want only %s, failed for good", listed, third)
	}
}
