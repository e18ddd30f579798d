package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

// fakeEnv is an environment made of a map.
func fakeEnv(vars map[string]string) lookupEnv {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{
		"database-url":  "DATABASE_URL",
		"schema":        "TICKWORK_SCHEMA",
		"drain-timeout": "TICKWORK_DRAIN_TIMEOUT",
	} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

func newTestFlags(stderr *bytes.Buffer) (*flag.FlagSet, *dbFlags, *time.Duration) {
	fs := newFlagSet("worker test", "worker test [flags]", stderr)
	var db dbFlags
	db.register(fs)
	drain := fs.Duration("drain-timeout", 30*time.Second, "drain")
	return fs, &db, drain
}

func TestParseFlagsEnvironmentThenCommandLine(t *testing.T) {
	var stderr bytes.Buffer
	fs, db, drain := newTestFlags(&stderr)
	env := fakeEnv(map[string]string{
		"DATABASE_URL":           "postgres://from-env/db",
		"TICKWORK_SCHEMA":        "envschema",
		"TICKWORK_DRAIN_TIMEOUT": "5s",
	})
	rest, err := parseFlags(fs, []string{"-schema", "flagschema", "extra"}, env)
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	if db.url != "postgres://from-env/db" || db.schema != "flagschema" || *drain != 5*time.Second {
		t.Fatalf("got url %q schema %q drain %v; want the URL and drain from the environment, the schema from the flag", db.url, db.schema, *drain)
	}
	if len(rest) != 1 || rest[0] != "extra" {
		t.Fatalf("positional args = %q, want [extra]", rest)
	}
}

func TestParseFlagsEmptyEnvironmentValues(t *testing.T) {
	var stderr bytes.Buffer
	fs, db, drain := newTestFlags(&stderr)
	_, err := parseFlags(fs, nil, fakeEnv(map[string]string{"TICKWORK_DRAIN_TIMEOUT": "", "TICKWORK_SCHEMA": ""}))
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	if *drain != 30*time.Second || db.schema != "" {
		t.Fatalf("drain %v, schema %q; want an empty duration ignored and an empty string applied", *drain, db.schema)
	}
}

func TestParseFlagsBadEnvironmentValue(t *testing.T) {
	var stderr bytes.Buffer
	fs, _, _ := newTestFlags(&stderr)
	_, err := parseFlags(fs, nil, fakeEnv(map[string]string{"TICKWORK_DRAIN_TIMEOUT": "soon"}))
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "TICKWORK_DRAIN_TIMEOUT") {
		t.Fatalf("parseFlags = %v, want a usage error naming TICKWORK_DRAIN_TIMEOUT", err)
	}
}

func TestHelpListsEnvironmentVariables(t *testing.T) {
	var stderr bytes.Buffer
	fs, _, _ := newTestFlags(&stderr)
	_, err := parseFlags(fs, []string{"-help"}, fakeEnv(nil))
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseFlags(-help) = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"[DATABASE_URL]", "[TICKWORK_SCHEMA]", "[TICKWORK_DRAIN_TIMEOUT]", "Usage: worker test"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("help output lacks %q:\n%s", want, stderr.String())
		}
	}
}

// runCLI runs the binary's main in-process.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIStdin(t, env, "", args...)
}

// runCLIStdin is runCLI with stdin as standard input.
func runCLIStdin(t *testing.T, env map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	environ := func() []string {
		var kvs []string
		for k, v := range env {
			kvs = append(kvs, k+"="+v)
		}
		return kvs
	}
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, env: fakeEnv(env), environ: environ, abandon: context.Background()}
	code = c.main(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestCommandLineMistakes(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "Usage:"},
		{[]string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{[]string{"run", "-no-such-flag"}, nil, "flag provided but not defined: -no-such-flag"},
		{[]string{"migrate"}, nil, "no database: set DATABASE_URL or pass -database-url"},
		{[]string{"migrate", "stray"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "unexpected argument"},
		{[]string{"run", "-concurrency", "0"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-concurrency"},
		{[]string{"run", "-queues", "noop,emails"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, `no built-in handler for queue "emails"`},
		{[]string{"run", "-admin-token", "t"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-admin-token needs -admin-addr"},
		{[]string{"enqueue", "-payload", "{}"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-queue is required"},
		{[]string{"enqueue", "-queue", "noop", "-payload", "{nope"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "not valid JSON"},
		{[]string{"enqueue", "-queue", "noop", "-payload", "{}", "-at", "tomorrow"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "RFC 3339"},
		{[]string{"enqueue", "-queue", "webhook", "-payload", `{"url": "ftp://x"}`}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "scheme must be http or https"},
		{[]string{"enqueue", "-queue", "noop", "-payload", `"` + strings.Repeat("x", 1<<20) + `"`}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-payload has more than the 1048576 bytes"},
		{[]string{"run", "-queues", ""}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-queues is empty"},
		{[]string{"run"}, map[string]string{"DATABASE_URL": "postgres://h/d", "TICKWORK_QUEUES": "noop,noop"}, `queue "noop" is listed twice`},
		{[]string{"run", "-lease-ttl", "1s", "-dead-threshold", "1s", "-heartbeat-interval", "2s"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "-dead-threshold 1s must be longer than -heartbeat-interval 2s"},
		{[]string{"run", "-retry-delay", "0s", "-drain-timeout", "-1s"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, `-retry-delay "0s": out of range: want 1ms to 24h`},
		{[]string{"jobs"}, nil, "jobs list, jobs show, jobs retry, jobs cancel, jobs delete, jobs skip or jobs redrive"},
		{[]string{"jobs", "remove"}, nil, `unknown jobs command "remove"`},
		{[]string{"jobs", "retry"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, "one job id"},
		{[]string{"jobs", "cancel", "not-an-id"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, `"not-an-id" is not a job id`},
		{[]string{"jobs", "list", "-status", "done"}, map[string]string{"DATABASE_URL": "postgres://h/d"}, `unknown status "done"`},
		{[]string{"migrate", "-database-url", "postgres://u:hunter2@h:notaport/d"}, nil, "does not parse"},
	}
	for _, tc := range cases {
		code, _, stderr := runCLI(t, tc.env, tc.args...)
		args := shownArgs(tc.args)
		if code != exitUsage {
			t.Errorf("worker %s: exit %d, want %d; stderr:\n%s", args, code, exitUsage, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("worker %s: stderr lacks %q:\n%s", args, tc.want, stderr)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("worker %s: stderr shows the password:\n%s", args, stderr)
		}
	}
}

// shownArgs prints a command line for a test message, long arguments cut.
func shownArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shown(a)
	}
	return strings.Join(out, " ")
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"run", "-help"}, {"jobs", "list", "-h"}} {
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != exitOK {
			t.Errorf("worker %q: exit %d, want 0", args, code)
		}
		if !strings.Contains(stdout+stderr, "Usage") {
			t.Errorf("worker %q printed no usage", args)
		}
	}
}

func TestRunHelpDocumentsEveryFlagsEnvironmentVariable(t *testing.T) {
	_, stdout, _ := runCLI(t, nil, "run", "-help")
	for _, want := range []string{"[DATABASE_URL]", "[TICKWORK_QUEUES]", "[TICKWORK_CONCURRENCY]", "[TICKWORK_DRAIN_TIMEOUT]", "[TICKWORK_METRICS_ADDR]", "[TICKWORK_WEBHOOK_ALLOW_PRIVATE]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run -help lacks %s", want)
		}
	}
}
