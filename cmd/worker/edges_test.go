package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// runWant runs the CLI in-process and fails t unless it exits with want.
func runWant(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, nil, args...)
	if code != want {
		t.Fatalf("worker %s: exit %d, want %d; stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// Setting a queue no job is on works (setting it ahead is legitimate)
// and says so; on a queue with jobs it says nothing more.
func TestQueueSettingAheadSaysNoJobIsOnIt(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	for _, verb := range [][]string{{"pause"}, {"set-limit", "3"}, {"set-rate", "5/s"}} {
		out, errOut := runWant(t, exitOK, cmdArgs([]string{"queues", verb[0]}, db, append([]string{"nosuchqueue"}, verb[1:]...)...)...)
		if !strings.HasPrefix(out, `queue "nosuchqueue" `) || !strings.Contains(errOut, `no job is on queue "nosuchqueue"`) {
			t.Errorf("queues %s nosuchqueue: stdout %q, stderr %q; want the setting and a note that no job is on it", verb[0], out, errOut)
		}
	}
	runWant(t, exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}")...)
	if _, errOut := runWant(t, exitOK, cmdArgs([]string{"queues", "pause"}, db, "mail")...); errOut != "" {
		t.Errorf("queues pause mail, which has a job: stderr %q, want nothing", errOut)
	}
	_, errOut := runWant(t, exitUsage, cmdArgs([]string{"queues", "pause"}, db)...)
	if !strings.Contains(errOut, "want 1 argument (") {
		t.Errorf("queues pause without a queue: %q, want \"want 1 argument\"", errOut)
	}
}

// Every command that writes rows refuses a schema migrated by a newer
// release, as run, migrate and the console do, and writes nothing.
func TestWritersRefuseANewerSchema(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	id, _ := runWant(t, exitOK, cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}")...)
	_, err := st.Pool().Exec(context.Background(), "INSERT INTO "+pgx.Identifier{st.Schema(), "schema_migrations"}.Sanitize()+
		" (version, name) VALUES ($1, 'from_a_newer_release')", pg.SchemaVersion()+1)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		cmdArgs([]string{"enqueue"}, db, "-queue", "mail", "-payload", "{}"),
		cmdArgs([]string{"queues", "pause"}, db, "mail"),
		cmdArgs([]string{"jobs", "cancel"}, db, strings.TrimSpace(id)),
	} {
		_, errOut := runWant(t, exitFailure, args...)
		if !strings.Contains(errOut, "newer") {
			t.Errorf("worker %s on a newer schema: %q, want it refused as newer", strings.Join(args[:2], " "), errOut)
		}
	}
	jobs := listJobs(t, st)
	if len(jobs) != 1 || jobs[0].Status != store.Available {
		t.Errorf("after the refusals the schema holds %+v, want the one available job", jobs)
	}
}

// jobs list on a damaged schema says what it listed in words, not as a
// Go struct.
func TestJobsListOnADamagedSchemaIsASentence(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	if _, err := st.Pool().Exec(context.Background(), "ALTER TABLE "+pgx.Identifier{st.Schema(), "jobs"}.Sanitize()+" DROP COLUMN priority"); err != nil {
		t.Fatal(err)
	}
	_, errOut := runWant(t, exitFailure, cmdArgs([]string{"jobs", "list"}, db, "-status", "failed", "-queue", "mail")...)
	if strings.ContainsAny(errOut, "{}") || strings.Contains(errOut, "Status:") ||
		!strings.Contains(errOut, `list jobs with status failed on queue "mail", newest first`) {
		t.Errorf("jobs list on a damaged schema: %q", errOut)
	}
}

// queues list quotes a name with control characters as jobs list does,
// so that it reads apart from one with spaces.
func TestQueuesListQuotesControlCharacters(t *testing.T) {
	var b strings.Builder
	if err := printQueues(&b, []store.QueueStats{{Queue: store.Queue{Name: "a\nb\tc"}}, {Queue: store.Queue{Name: "a b c"}}}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], `"a\nb\tc" `) || !strings.HasPrefix(lines[2], "a b c ") {
		t.Errorf("queues list:\n%s", b.String())
	}
}

// worker help names every subcommand of jobs and queues.
func TestHelpNamesEverySubcommand(t *testing.T) {
	out, _ := runWant(t, exitOK, "help")
	for _, list := range []string{jobsCommands, queuesCommands} {
		for _, cmd := range strings.Split(strings.ReplaceAll(list, " or ", ", "), ", ") {
			verb := strings.Fields(cmd)
			if !containsVerb(out, verb[0], verb[1]) {
				t.Errorf("worker help does not name %q", cmd)
			}
		}
	}
}

// containsVerb reports whether help has a usage line of group's verb
// (alone or in a|b form).
func containsVerb(help, group, verb string) bool {
	for _, line := range strings.Split(help, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "worker" && f[1] == group {
			for _, v := range strings.Split(f[2], "|") {
				if v == verb {
					return true
				}
			}
		}
	}
	return false
}
