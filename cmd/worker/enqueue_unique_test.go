package main

import (
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// A second enqueue with the same key prints the first job's id, says so on
// standard error, and stores nothing; a key made of the payload tells
// payloads apart; -unique-while completed keeps the key past completion.
func TestEnqueueUniqueKey(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	enqueue := func(args ...string) (ulid.ULID, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, args...)...)
		if code != exitOK {
			t.Fatalf("enqueue %s: exit %d, stderr:\n%s", shownArgs(args), code, stderr)
		}
		return ulid.MustParseStrict(strings.TrimSpace(stdout)), stderr
	}
	first, note := enqueue("-queue", "noop", "-payload", "{}", "-unique-key", "nightly")
	if strings.Contains(note, "nothing enqueued") {
		t.Fatalf("first enqueue reported a duplicate:\n%s", note)
	}
	again, note := enqueue("-queue", "noop", "-payload", `{"other":1}`, "-unique-key", "nightly")
	if again != first || !strings.Contains(note, "nothing enqueued: job "+first.String()+" (available) holds the unique key") {
		t.Errorf("duplicate enqueue printed %s, stderr:\n%s\nwant %s and a note", again, note, first)
	}
	a, _ := enqueue("-queue", "noop", "-payload", `{"n":1}`, "-unique-by-payload")
	b, _ := enqueue("-queue", "noop", "-payload", `{"n":2}`, "-unique-by-payload")
	c, _ := enqueue("-queue", "noop", "-payload", `{"n":1}`, "-unique-by-payload", "-unique-while", "completed")
	if a == b || a == c {
		t.Errorf("payload keys: %s %s %s, want three jobs (other payload, other statuses)", a, b, c)
	}
	if n := len(listJobs(t, st)); n != 4 {
		t.Errorf("%d jobs stored, want 4", n)
	}
	if j := getJob(t, st, c); j.UniqueStates != store.LiveStatuses|store.StatusesOf(store.Completed) {
		t.Errorf("-unique-while completed stored statuses %s", j.UniqueStates)
	}
}

func TestEnqueueUniqueFlagErrors(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://h/d"}
	base := []string{"enqueue", "-queue", "noop", "-payload", "{}"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-unique-key", "k", "-unique-by-payload"}, "give one of them"},
		{[]string{"-unique-while", "completed"}, "need -unique-key or -unique-by-payload"},
		{[]string{"-unique-key", "k", "-unique-while", "failed"}, `-unique-while "failed": want completed, cancelled or both`},
		{[]string{"-unique-key", "k\x00"}, "a key is 1 to 256 bytes"},
	} {
		code, _, stderr := runCLI(t, env, append(base, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("enqueue %s: exit %d, stderr:\n%s\nwant 2 and %q", shownArgs(tc.args), code, stderr, tc.want)
		}
	}
}
