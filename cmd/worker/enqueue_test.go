package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// Each refusal names the flag at fault, never a made-up job id, and quotes
// at most a prefix of a long value.
func TestEnqueueErrorsNameTheFlag(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://h/d"}
	long := strings.Repeat("q", 10000)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-queue", long, "-payload", "{}"}, `-queue "` + strings.Repeat("q", 40) + `"… (10000 bytes): a queue name is 1 to 128 bytes`},
		{[]string{"-queue", long, "-payload", "{nope"}, "-queue"},
		{[]string{"-queue", "bad\x00name", "-payload", "{}"}, `-queue "bad\x00name": a queue name is 1 to 128 bytes of UTF-8 without NUL`},
		{[]string{"-queue", "noop", "-payload", "{nope"}, "-payload is not valid JSON: invalid character 'n' looking for beginning of object key string (at byte 2)"},
		{[]string{"-queue", "emails", "-payload", "\"\xff\""}, "-payload is not valid UTF-8"},
		{[]string{"-queue", "noop", "-payload", "{}", "-at", long}, `-at "` + strings.Repeat("q", 40) + `"… (10000 bytes) is not an RFC 3339 time`},
		{[]string{"-queue", "noop", "-payload", "{}", "-at", "2030-01-02T15:04:05Z", "-in", "10s"}, "-at and -in both say when the job runs"},
		{[]string{"-queue", "noop", "-payload", "@/no/such/file.json"}, `-payload "@/no/such/file.json": no such file or directory`},
	} {
		code, _, stderr := runCLI(t, env, append([]string{"enqueue"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("enqueue %s: exit %d, stderr:\n%s\nwant 2 and %q", shownArgs(tc.args), code, stderr, tc.want)
		}
		if strings.Contains(stderr, "00000000000000000000000000") || len(stderr) > 500 {
			t.Errorf("enqueue %s: stderr names a made-up id or echoes a long value (%d bytes):\n%.600s", shownArgs(tc.args), len(stderr), stderr)
		}
	}
}

// -payload @FILE and -payload - carry payloads larger than a command line
// may (about 128 KiB) up to the store's 1 MiB; -in schedules in store time.
func TestEnqueuePayloadFromFileOrStdinAndIn(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	big := `{"blob": "` + strings.Repeat("x", 300<<10) + `"}`
	file := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	enqueue := func(stdin string, args ...string) store.Job {
		t.Helper()
		code, stdout, stderr := runCLIStdin(t, nil, stdin, cmdArgs([]string{"enqueue"}, db, args...)...)
		if code != exitOK {
			t.Fatalf("enqueue %s: exit %d, stderr:\n%s", shownArgs(args), code, stderr)
		}
		return getJob(t, st, ulid.MustParseStrict(strings.TrimSpace(stdout)))
	}
	for name, j := range map[string]store.Job{
		"@file": enqueue("", "-queue", "noop", "-payload", "@"+file),
		"stdin": enqueue(big, "-queue", "noop", "-payload", "-"),
	} {
		if !json.Valid(j.Payload) || len(j.Payload) < 300<<10 || j.Status != store.Available {
			t.Errorf("-payload %s stored a %s job with %d payload bytes", name, j.Status, len(j.Payload))
		}
	}

	j := enqueue("", "-queue", "noop", "-payload", "{}", "-in", "10s")
	if j.Status != store.Scheduled || j.ScheduledAt.Sub(j.CreatedAt) != 10*time.Second {
		t.Errorf("-in 10s stored a %s job scheduled %v after its creation, want scheduled 10s after", j.Status, j.ScheduledAt.Sub(j.CreatedAt))
	}

	tooBig := `"` + strings.Repeat("x", store.MaxPayloadBytes) + `"`
	code, _, stderr := runCLIStdin(t, nil, tooBig, cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", "-")...)
	if code != exitUsage || !strings.Contains(stderr, "-payload (standard input) has more than the 1048576 bytes") {
		t.Errorf("payload over 1 MiB on stdin: exit %d, stderr:\n%s", code, stderr)
	}
	if n := len(listJobs(t, st)); n != 3 {
		t.Errorf("%d jobs stored, want 3", n)
	}
}
