package pg_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// requireTool returns the path of the program name, or ends the test
// saying how to install it: a failure under CI, which must run every test,
// a skip elsewhere.
func requireTool(t *testing.T, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		long.Unavailable(t, name+" is not installed ("+install+"): "+err.Error())
	}
	return path
}

// parseUUID reads the function's answer as a client prints it.
func parseUUID(t *testing.T, text string) ulid.ULID {
	t.Helper()
	var id ulid.ULID
	if n, err := hex.Decode(id[:], []byte(strings.ReplaceAll(text, "-", ""))); err != nil || n != len(id) {
		t.Fatalf("%q is not a uuid", text)
	}
	return id
}

// psql enqueues in a transaction of psql's, and a refused call stops the
// script with the function's message.
func TestEnqueueFunctionFromPsql(t *testing.T) {
	psql := requireTool(t, "psql", "apt-get install -y postgresql-client")
	s := pgtest.Open(t, nil)
	fn := pgx.Identifier{s.Schema()}.Sanitize() + ".enqueue"
	run := func(script string) (string, string, error) {
		cmd := exec.CommandContext(t.Context(), psql, pgtest.URL(t), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-f", "-")
		cmd.Stdin = strings.NewReader(script)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return strings.TrimSpace(stdout.String()), stderr.String(), err
	}

	out, stderr, err := run("BEGIN;\nSELECT " + fn + `('emails', '{"to": "psql@example.com"}', priority => 5, scheduled_at => '2099-01-01T00:00:00Z');` + "\nCOMMIT;\n")
	if err != nil {
		t.Fatalf("psql: %v: %s", err, stderr)
	}
	id := parseUUID(t, out)
	j, ok := getJob(t, s, id)
	if !ok || j.Queue != "emails" || j.Priority != 5 || j.Status != store.Scheduled || !j.ScheduledAt.Equal(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("psql's job %s: %+v (found %v); want it scheduled on emails at priority 5", id, j, ok)
	}

	_, stderr, err = run("SELECT " + fn + "('', '{}');\n")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(stderr, "ERROR:  tickwork.enqueue: queue name '' must be 1 to 128 bytes") {
		t.Errorf("a refused call from psql: %v, %q; want exit status 3 and the function's message", err, stderr)
	}
}

// nodeDir holds the Node.js package that enqueues through the function.
const nodeDir = "testdata/node"

// Node.js with the npm pg package (installed from the lockfile when
// missing) enqueues inside its own transaction, a rollback leaves nothing,
// a refused call carries SQLSTATE 22023 and the function's message, and
// README.md's TypeScript snippet, run verbatim (it is plain JavaScript),
// enqueues its job.
func TestEnqueueFunctionFromNode(t *testing.T) {
	long.Test(t, "installs npm packages when missing and starts Node.js")
	node := requireTool(t, "node", "Node.js 20 or later")
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "pg")); err != nil {
		npm := requireTool(t, "npm", "it comes with Node.js")
		cmd := exec.CommandContext(t.Context(), npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = nodeDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v: %s", nodeDir, err, out)
		}
	}
	s := pgtest.Open(t, nil)
	cmd := exec.CommandContext(t.Context(), node, "enqueue.mjs", s.Schema(), "../../../../README.md")
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.URL(t))
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("node enqueue.mjs: %v: %s", err, exit.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		ID, Readme string
		Refused    struct{ Code, Message string }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	j, ok := getJob(t, s, parseUUID(t, got.ID))
	if !ok || j.Queue != "emails" || j.Priority != 4 || j.Status != store.Available || j.UniqueKey != "node-1|scheduled,available,running" ||
		string(canonicalJSON(t, j.Payload)) != `{"to":"node@example.com"}` {
		t.Errorf("node's job: %+v (found %v); want it available on emails at priority 4 with key node-1", j, ok)
	}
	r, ok := getJob(t, s, parseUUID(t, got.Readme))
	if !ok || r.Queue != "welcome" || r.Status != store.Available || string(canonicalJSON(t, r.Payload)) != `{"user":"ada"}` ||
		string(canonicalJSON(t, r.Metadata)) != `{"tenant":"t1"}` {
		t.Errorf("README's TypeScript snippet's job: %+v (found %v); want it available on welcome with tenant t1", r, ok)
	}
	if n := countJobs(t, s); n != 2 {
		t.Errorf("%d rows; want node's and the snippet's committed ones only", n)
	}
	if got.Refused.Code != "22023" || !strings.Contains(got.Refused.Message, "priority 12 is outside 0 to 9") {
		t.Errorf("node's refused call: %+v; want SQLSTATE 22023 naming the priority", got.Refused)
	}
}

// pythonWithPsycopg returns a Python 3 that imports psycopg 3: the one on
// PATH, or Debian's, where python3-psycopg installs it.
func pythonWithPsycopg(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(name)
		if err == nil && exec.CommandContext(t.Context(), path, "-c", "import psycopg").Run() == nil {
			return path
		}
	}
	long.Unavailable(t, "no python3 imports psycopg 3 (apt-get install -y python3-psycopg)")
	return ""
}

// README.md's Python snippet, run verbatim with psycopg 3, enqueues a
// scheduled job inside its own transaction; a rolled back enqueue leaves
// nothing, and a refused one carries SQLSTATE 22023 and the function's
// message.
func TestEnqueueFunctionFromPython(t *testing.T) {
	python := pythonWithPsycopg(t)
	s := pgtest.Open(t, nil)
	cmd := exec.CommandContext(t.Context(), python, "testdata/python/enqueue.py", "../../README.md", s.Schema())
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.URL(t))
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("python3 enqueue.py: %v: %s", err, exit.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		ID      string
		Refused struct{ Code, Message string }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python printed %q: %v", out, err)
	}
	j, ok := getJob(t, s, parseUUID(t, got.ID))
	if !ok || j.Queue != "welcome" || j.Status != store.Scheduled || j.ScheduledAt.Before(j.CreatedAt.Add(23*time.Hour)) ||
		string(canonicalJSON(t, j.Payload)) != `{"user":"ada"}` {
		t.Errorf("the snippet's job: %+v (found %v); want it scheduled on welcome a day after its creation", j, ok)
	}
	if n := countJobs(t, s); n != 1 {
		t.Errorf("%d rows; want the snippet's committed one only", n)
	}
	if got.Refused.Code != "22023" || !strings.Contains(got.Refused.Message, "priority 12 is outside 0 to 9") {
		t.Errorf("python's refused call: %+v; want SQLSTATE 22023 naming the priority", got.Refused)
	}
}
