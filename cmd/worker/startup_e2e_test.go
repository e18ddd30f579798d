package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestStartupEndToEnd drives the binary through what an operator meets
// first: migrate's report, schemas it must refuse, readiness, and failures
// whose output must not show a password or a webhook secret.
func TestStartupEndToEnd(t *testing.T) {
	runEndToEnd(t, []e2eCase{
		{"MigrateReportsWhatItApplied", testMigrateReports},
		{"NewerSchemaIsRefused", testNewerSchemaRefused},
		{"VersionRowWithoutTables", testVersionRowWithoutTables},
		{"ReadyzFollowsTicks", testReadyzFollowsTicks},
		{"DatabaseSecretsNeverPrinted", testDatabaseSecretsNeverPrinted},
		{"WebhookSecretsNeverRecorded", testWebhookSecretsNeverRecorded},
	})
}

// execSQL runs SQL on the test database.
func execSQL(t *testing.T, sql string) {
	t.Helper()
	if err := tryExecSQL(t, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func tryExecSQL(t *testing.T, sql string) error {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql)
	return err
}

func testMigrateReports(t *testing.T, bin string) {
	schema := pgtest.Schema(t)
	db := dbArgs(t, schema)
	first := mustRun(t, bin, cmdArgs([]string{"migrate"}, db)...)
	for _, want := range []string{fmt.Sprintf("schema %q: applied migration 0001_init", schema), fmt.Sprintf("is now at version %d", pg.SchemaVersion())} {
		if !strings.Contains(first, want) {
			t.Errorf("the migration that created the tables printed:\n%s\nwant %q", first, want)
		}
	}
	if strings.Contains(first, "up to date") {
		t.Errorf("the migration that created the tables says it was up to date:\n%s", first)
	}
	if again := mustRun(t, bin, cmdArgs([]string{"migrate"}, db)...); again != fmt.Sprintf("schema %q is up to date at version %d\n", schema, pg.SchemaVersion()) {
		t.Errorf("a second migration printed %q", again)
	}
}

func testNewerSchemaRefused(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	execSQL(t, "INSERT INTO "+pgx.Identifier{st.Schema(), "schema_migrations"}.Sanitize()+" (version, name) VALUES (999, 'from_the_future')")
	db := dbArgs(t, st.Schema())
	for _, sub := range [][]string{{"migrate"}, {"run", "-metrics-addr", ""}} {
		code, stdout, stderr := runProc(t, bin, cmdArgs(sub, db)...)
		if code != exitFailure || !strings.Contains(stderr, "newer than this code") || !strings.Contains(stderr, "at migration 999") || !strings.Contains(stderr, "upgrade") {
			t.Errorf("worker %s on a schema at version 999: exit %d, want 1 and a message saying the schema is newer\nstdout:\n%s\nstderr:\n%s", sub, code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, "up to date") || strings.Contains(stderr, "worker starting") {
			t.Errorf("worker %s used a schema newer than it knows:\n%s%s", sub, stdout, stderr)
		}
	}
}

func testVersionRowWithoutTables(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	execSQL(t, "DROP TABLE "+pgx.Identifier{st.Schema(), "jobs"}.Sanitize()+" CASCADE")
	db := dbArgs(t, st.Schema())
	for _, sub := range [][]string{{"migrate"}, {"run", "-metrics-addr", ""}} {
		code, stdout, stderr := runProc(t, bin, cmdArgs(sub, db)...)
		if code != exitFailure || !strings.Contains(stderr, "lacks table jobs") {
			t.Errorf("worker %s on a schema without its jobs table: exit %d, want 1 and the missing table named\nstdout:\n%s\nstderr:\n%s", sub, code, stdout, stderr)
		}
	}
}

// testReadyzFollowsTicks drops the schema under a running worker: its
// ticks fail from then on, and /readyz must say so.
func testReadyzFollowsTicks(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, dbArgs(t, st.Schema()), append(fastRun, "-metrics-addr", "127.0.0.1:0")...)...)
	readyz := w.opsURL() + "/readyz"
	eventually(t, "/readyz answers 200", func() bool { code, _ := get(t, readyz); return code == 200 })
	// The running worker's transactions can make the drop a deadlock
	// victim: try again until it goes through.
	eventually(t, "the schema is dropped", func() bool {
		return tryExecSQL(t, "DROP SCHEMA "+pgx.Identifier{st.Schema()}.Sanitize()+" CASCADE") == nil
	})
	// The worker's own transaction may be the deadlock's victim instead:
	// /readyz then reports that failure first, and the next tick's.
	var body string
	eventually(t, "/readyz answers 503, the schema missing, once the ticks fail", func() bool {
		var code int
		code, body = get(t, readyz)
		return code == 503 && strings.Contains(body, "not migrated")
	})
	if !strings.Contains(body, "last store call failed") {
		t.Errorf("/readyz says %q, want the failing tick's reason", body)
	}
}

// failureOutput collects everything the binary printed in failure cases,
// for one check that no secret is in any of it.
type failureOutput struct {
	mu  sync.Mutex
	all strings.Builder
}

func (o *failureOutput) add(what, stdout, stderr string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(&o.all, "== %s\n%s%s", what, stdout, stderr)
}

func (o *failureOutput) wantNone(t *testing.T, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(o.all.String(), s) {
			t.Errorf("the output of the failure cases shows %q:\n%s", s, o.all.String())
		}
	}
}

func testDatabaseSecretsNeverPrinted(t *testing.T, bin string) {
	var out failureOutput
	authAddr, _ := fakeAuthServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()
	local, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	withPassword := func(path string) string {
		u := *local
		u.User = url.UserPassword(u.User.Username(), secretPassword)
		u.Path = path
		return u.String()
	}
	urls := map[string]string{
		"scheme without colon":  "postgres//tick:" + secretPassword + "@" + authAddr + "/queue",
		"scheme with one slash": "postgresql:/tick:" + secretPassword + "@" + authAddr + "/queue",
		"bad port":              "postgres://tick:" + secretPassword + "@" + authAddr + "x/queue",
		"password with a slash": "postgres://tick:pw/" + secretPassword + "@" + authAddr + "/queue",
		"key=value unquoted":    "host=127.0.0.1 port=x password=" + secretPassword,
		"wrong password":        "postgres://tick:" + secretPassword + "@" + authAddr + "/queue?sslmode=disable",
		"unreachable":           "postgres://tick:" + secretPassword + "@" + closedAddr + "/queue?sslmode=disable&connect_timeout=1",
		"unknown database":      withPassword("/no_such_database_for_tickwork"),
		"unknown parameter":     pg.WithParam(withPassword(local.Path), "no_such_setting", secretPassword),
	}
	for what, dbURL := range urls {
		for _, sub := range [][]string{{"migrate"}, {"run", "-metrics-addr", ""}, {"jobs", "list"}, {"enqueue", "-queue", "noop", "-payload", "{}"}} {
			code, stdout, stderr := runProc(t, bin, cmdArgs(sub, []string{"-database-url", dbURL, "-connect-timeout", "300ms"})...)
			if code == 0 {
				t.Errorf("worker %s with %s succeeded", sub, what)
			}
			out.add(fmt.Sprintf("worker %s with %s", sub, what), stdout, stderr)
		}
	}
	out.wantNone(t, secretPassword)
}

// testWebhookSecretsNeverRecorded runs webhook jobs whose URLs and headers
// carry credentials into every failure: the failure reasons, the worker's
// logs, enqueue's refusals and jobs list must not show them.
func testWebhookSecretsNeverRecorded(t *testing.T, bin string) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	var out failureOutput
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer hook.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	secretURL := func(base, path string) string {
		return strings.Replace(base, "://", "://user:"+webhookSecret+"@", 1) + path + "?token=" + webhookSecret
	}
	payloads := []string{
		fmt.Sprintf(`{"url": %q}`, secretURL(hook.URL, "/gone")),
		fmt.Sprintf(`{"url": %q}`, secretURL(hook.URL, "/busy")),
		fmt.Sprintf(`{"url": %q}`, secretURL(closed.URL, "/x")),
		fmt.Sprintf(`{"url": %q, "headers": {"Authorization": "Bearer %s\r\nX-Evil: 1"}}`, hook.URL, webhookSecret),
		fmt.Sprintf(`{"url": %q}`, "http://user:"+webhookSecret+"@"+strings.TrimPrefix(hook.URL, "http://")+"x/"),
	}
	// Some are refused at enqueue, the others fail when they run.
	for i, p := range payloads {
		_, stdout, stderr := runProc(t, bin, cmdArgs([]string{"enqueue"}, db, "-queue", "webhook", "-payload", p)...)
		out.add(fmt.Sprintf("enqueue of payload %d", i), stdout, stderr)
	}
	ids := insertJobs(t, st, "webhook", payloads...)
	w := startProc(t, bin, "worker run", cmdArgs([]string{"run"}, db, append(fastRun, "-max-retries", "1")...)...)
	// A retry is inserted in the transaction that fails its attempt, so
	// once every row is failed, no attempt is left to run.
	eventually(t, "every webhook job failed for good", func() bool {
		for _, j := range listJobs(t, st) {
			if j.Status != store.Failed {
				return false
			}
		}
		return true
	})
	for _, j := range listJobs(t, st) {
		if strings.Contains(j.FailedReason, webhookSecret) {
			t.Errorf("job %s recorded the secret in its reason: %q", j.ID, j.FailedReason)
		}
	}
	if j := getJob(t, st, ids[3]); j.Status != store.Failed || !j.NextAttemptID.IsZero() {
		t.Errorf("the job with a CR/LF header value: %+v, want failed at once without a retry", j)
	}
	listOut := mustRun(t, bin, cmdArgs([]string{"jobs", "list", "-status", "failed"}, db)...)
	out.add("jobs list", listOut, "")
	w.signal(syscall.SIGTERM)
	w.wait()
	out.add("worker run", w.stdout.String(), w.stderr.String())
	out.wantNone(t, webhookSecret)
}
