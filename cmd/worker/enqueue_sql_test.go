package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// The statement enqueue -print-sql prints, run as another service would,
// writes the job enqueue writes with the same flags, and needs no
// database to be printed.
func TestEnqueuePrintSQLWritesTheSameJob(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	for _, flags := range [][]string{
		{"-queue", "noop", "-payload", `{"quote": "it's"}`},
		{"-queue", "emails", "-payload", `[1]`, "-priority", "3", "-max-attempts", "2", "-in", "90s"},
		{"-queue", "emails", "-payload", `"x"`, "-at", "2030-01-02T15:04:05.5+02:00", "-unique-key", "k", "-unique-while", "completed, cancelled"},
	} {
		code, stdout, stderr := runCLI(t, nil, append([]string{"enqueue", "-schema", st.Schema(), "-print-sql"}, flags...)...)
		if code != exitOK || !strings.HasPrefix(stdout, "SELECT ") {
			t.Fatalf("enqueue -print-sql %s: exit %d, stdout %q, stderr:\n%s", shownArgs(flags), code, stdout, stderr)
		}
		var raw pgtype.UUID
		if err := st.Pool().QueryRow(t.Context(), stdout).Scan(&raw); err != nil {
			t.Fatalf("%s: %v", stdout, err)
		}
		bySQL := getJob(t, st, ulid.ULID(raw.Bytes))
		if flags[len(flags)-2] == "-unique-while" { // the key is held now: enqueue would return bySQL
			if _, err := st.Pool().Exec(t.Context(), "UPDATE "+sqlIdent(st.Schema())+".jobs SET unique_key = NULL WHERE unique_key IS NOT NULL"); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr = runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, flags...)...)
		if code != exitOK {
			t.Fatalf("enqueue %s: exit %d, stderr:\n%s", shownArgs(flags), code, stderr)
		}
		byCLI := getJob(t, st, ulid.MustParseStrict(strings.TrimSpace(stdout)))
		if g, s := sameJobView(t, byCLI), sameJobView(t, bySQL); g != s {
			t.Errorf("enqueue %s:\n the CLI wrote   %s\n its SQL wrote   %s", shownArgs(flags), g, s)
		}
	}

	code, _, stderr := runCLI(t, nil, "enqueue", "-print-sql", "-queue", "q", "-payload", "{}", "-sequence", "s")
	if code != exitUsage || !strings.Contains(stderr, "-print-sql: -sequence has no argument in the enqueue function") {
		t.Errorf("-print-sql with -sequence: exit %d, stderr:\n%s", code, stderr)
	}
}

// sameJobView renders what two enqueues of one job share: all but ids and
// times, with the delay from creation to the scheduled time and the
// payload as a JSON value.
func sameJobView(t *testing.T, j store.Job) string {
	t.Helper()
	var payload any
	if err := json.Unmarshal(j.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	delay := j.ScheduledAt.Sub(j.CreatedAt).String()
	if j.ScheduledAt.Year() == 2030 {
		delay = j.ScheduledAt.String()
	}
	b, err := json.Marshal([]any{j.Queue, payload, string(j.Metadata), j.Status, j.Priority, j.MaxAttempts, j.UniqueKey, j.UniqueStates, delay})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
