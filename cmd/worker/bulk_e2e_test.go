package main

import (
	"context"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// reserveAll has a new worker reserve every job of queue (up to 100),
// then calls end with the transaction and the worker, to end some.
func reserveAll(t *testing.T, st store.Store, queue string, end func(ctx context.Context, tx store.Tx, w ulid.ULID) error) {
	t.Helper()
	ctx := context.Background()
	err := st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		w := clockrng.NewULID(now, clockrng.NewRandFromOS())
		if err := tx.RegisterWorker(ctx, w); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, w, []string{queue}, 100); err != nil {
			return err
		}
		return end(ctx, tx, w)
	})
	if err != nil {
		t.Fatalf("reserve and end jobs of %s: %v", queue, err)
	}
}

// runAndFail has a new worker reserve every job of queue and fail those
// in failed, leaving the others running.
func runAndFail(t *testing.T, st store.Store, queue string, failed ...ulid.ULID) {
	t.Helper()
	reserveAll(t, st, queue, func(ctx context.Context, tx store.Tx, w ulid.ULID) error {
		for _, id := range failed {
			if err := tx.FailJob(ctx, w, id, "boom"); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestJobsBulkEndToEnd drives `worker jobs retry|cancel|delete` with
// filter flags: dry run, batches, refusals, and bad input.
func TestJobsBulkEndToEnd(t *testing.T) {
	long.Test(t, "builds the binary")
	bin := buildWorker(t)
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	mail := insertJobs(t, st, "mail", `{"to":"a@x"}`, `{"to":"b@x"}`, `{"to":"c@x"}`)
	other := insertJobs(t, st, "other", `{"to":"a@x"}`)
	runAndFail(t, st, "mail", mail[0], mail[1])
	jobs := func(sub string, more ...string) (int, string, string) {
		return runProc(t, bin, cmdArgs([]string{"jobs", sub}, db, more...)...)
	}
	wantOut := func(what string, code int, stdout, stderr string, wantCode int, want string) {
		t.Helper()
		if code != wantCode || !strings.Contains(stdout+stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", what, code, stdout, stderr, wantCode, want)
		}
	}
	code, out, errOut := jobs("retry")
	wantOut("retry without id or filter", code, out, errOut, exitUsage, "-all")
	code, out, errOut = jobs("cancel", "-status", "bogus")
	wantOut("unknown status", code, out, errOut, exitUsage, `status "bogus"`)
	code, out, errOut = jobs("cancel", "-queue", "mail", "-older-than", "-1h")
	wantOut("negative age", code, out, errOut, exitUsage, "age -1h0m0s is negative")
	code, out, errOut = jobs("delete", "-queue", "mail", "-dry-run")
	wantOut("dry run", code, out, errOut, 0, "3 jobs match; dry run, nothing deleted")
	code, out, errOut = jobs("cancel", "-text", `"to":"a@x"`, "-older-than", "1h", "-dry-run")
	wantOut("age on the database's clock", code, out, errOut, 0, "0 jobs match")
	code, out, errOut = jobs("retry", "-queue", "mail", "-status", "failed", "-batch-size", "1")
	wantOut("retry of the failed", code, out, errOut, 0, "2 jobs matched, 2 retried, 0 refused")
	for _, id := range mail[:2] {
		if getJob(t, st, id).NextAttemptID.IsZero() {
			t.Errorf("failed job %s was not retried", id)
		}
	}
	code, out, errOut = jobs("delete", "-queue", "mail", "-status", "running")
	wantOut("delete of the running", code, out, errOut, 0, "1 jobs matched, 0 deleted, 1 refused")
	wantOut("delete's refusal", code, out, errOut, 0, "it is running; cancel it first")
	if j := getJob(t, st, mail[2]); j.Status != store.Running {
		t.Errorf("running job after a bulk delete: %s", j.Status)
	}
	code, out, errOut = jobs("cancel", "-text", `"to":"a@x"`, "-queue", "other")
	wantOut("cancel by text", code, out, errOut, 0, "1 jobs matched, 1 cancelled, 0 refused")
	if j := getJob(t, st, other[0]); j.Status != store.Cancelled {
		t.Errorf("job on other after the cancel: %s", j.Status)
	}
}

// TestJobsBulkFilterComesFromTheCommandLineOnly sees that environment
// variables left set do not turn a forgotten id into a bulk action.
func TestJobsBulkFilterComesFromTheCommandLineOnly(t *testing.T) {
	env := map[string]string{"TICKWORK_ALL": "true", "TICKWORK_QUEUE": "mail", "TICKWORK_STATUS": "failed"}
	for _, sub := range []string{"retry", "cancel", "delete"} {
		code, _, stderr := runCLI(t, env, "jobs", sub)
		if code != exitUsage || !strings.Contains(stderr, "want one job id or a filter") {
			t.Errorf("jobs %s with filters only in the environment: exit %d, stderr %q; want a usage error", sub, code, stderr)
		}
	}
}
