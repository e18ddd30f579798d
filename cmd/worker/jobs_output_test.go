package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// jobs show prints a completed job's recorded output, indented, in text
// and as JSON; a job without one shows none.
func TestJobsShowPrintsTheOutput(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	ids := insertJobs(t, st, "reports", `{}`, `{}`)
	reserveAll(t, st, "reports", func(ctx context.Context, tx store.Tx, w ulid.ULID) error {
		_, err := tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: ids, Outputs: []json.RawMessage{json.RawMessage(`{"rows":3}`), nil}})
		return err
	})
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"jobs", "show"}, db, ids[0].String())...)
	if code != exitOK || !strings.Contains(stdout, "output:\n  {\n    \"rows\": 3\n  }\n") {
		t.Errorf("jobs show: exit %d, stdout:\n%s\nstderr:\n%s\nwant the output block", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, nil, cmdArgs([]string{"jobs", "show", "-format", "json"}, db, ids[0].String())...)
	if code != exitOK || !strings.Contains(stdout, `"output": {`) {
		t.Errorf("jobs show -format json: exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, nil, cmdArgs([]string{"jobs", "show"}, db, ids[1].String())...)
	if code != exitOK || strings.Contains(stdout, "output:") {
		t.Errorf("jobs show of a job without output: exit %d, stdout:\n%s", code, stdout)
	}
}
