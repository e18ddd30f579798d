package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/worker"
)

// parseRun parses run's flags from args and env.
func parseRun(t *testing.T, args []string, env map[string]string) *runFlags {
	t.Helper()
	var stdout bytes.Buffer
	fs := newFlagSet("worker run", runSynopsis, &stdout)
	var f runFlags
	f.register(fs)
	if _, err := parseFlags(fs, args, fakeEnv(env)); err != nil {
		t.Fatalf("parseFlags(%q): %v", args, err)
	}
	return &f
}

func scheduleNames(specs []worker.ScheduleSpec) string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// -schedule on the command line replaces TICKWORK_SCHEDULE instead of
// adding to it, like every other flag.
func TestScheduleFlagWinsOverTheEnvironment(t *testing.T) {
	env := map[string]string{"TICKWORK_SCHEDULE": "from-env|0 * * * * *|noop|{}"}
	f := parseRun(t, []string{"-schedule", "from-flag|0 * * * * *|noop|{}"}, env)
	if got := scheduleNames(f.schedules); got != "from-flag" {
		t.Fatalf("schedules %q, want only the flag's from-flag", got)
	}
	if got := scheduleNames(parseRun(t, nil, env).schedules); got != "from-env" {
		t.Fatalf("schedules without the flag %q, want from-env", got)
	}
}

// TICKWORK_SCHEDULE holds several schedules, one per line.
func TestSeveralSchedulesFromTheEnvironment(t *testing.T) {
	env := map[string]string{"TICKWORK_SCHEDULE": "\na|0 * * * * *|noop|{}\n  b|*/5 * * * * *|noop|{\"k\": \"x;y\"}\r\n\n"}
	f := parseRun(t, nil, env)
	if got := scheduleNames(f.schedules); got != "a,b" {
		t.Fatalf("schedules %q, want a,b", got)
	}
	if got := string(f.schedules[1].Payload); got != `{"k": "x;y"}` {
		t.Errorf("payload of b = %s", got)
	}
	code, stdout, _ := runCLI(t, nil, "run", "-help")
	if code != exitOK || !strings.Contains(stdout, "[TICKWORK_SCHEDULE, one schedule per line]") {
		t.Errorf("run -help does not document the separator:\n%s", stdout)
	}
}

// A TICKWORK_ variable that no command reads is warned about; one another
// command reads is not.
func TestUnknownEnvironmentVariablesAreWarnedAbout(t *testing.T) {
	env := map[string]string{
		"DATABASE_URL":        "postgres://h/d",
		"TICKWORK_CONCURENCY": "5",    // typo
		"TICKWORK_QUEUE":      "noop", // enqueue's
		"TICKWORKS_OTHER":     "x",    // not ours
	}
	_, _, stderr := runCLI(t, env, "jobs", "list", "-status", "nope")
	if !strings.Contains(stderr, "warning: ignoring environment variable \"TICKWORK_CONCURENCY\"") {
		t.Errorf("no warning about TICKWORK_CONCURENCY:\n%s", stderr)
	}
	if strings.Count(stderr, "warning") != 1 {
		t.Errorf("want exactly one warning:\n%s", stderr)
	}
}

func TestHelpGoesToStandardOutput(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"run", "-h"}, {"run", "-help"}, {"enqueue", "--help"}, {"jobs", "list", "-h"}, {"jobs", "show", "-h"}, {"jobs", "help"}, {"migrate", "-h"}} {
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != exitOK || !strings.Contains(stdout, "Usage") || stderr != "" {
			t.Errorf("worker %q: exit %d, stdout %d bytes, stderr %q; want 0, the usage on stdout and nothing on stderr", args, code, len(stdout), stderr)
		}
	}
}

// The metrics server listens on loopback unless told otherwise.
func TestMetricsAddrDefaultsToLoopback(t *testing.T) {
	f := parseRun(t, nil, nil)
	host, _, err := net.SplitHostPort(f.metricsAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Fatalf("-metrics-addr defaults to %q, want a loopback address", f.metricsAddr)
	}
	if f := parseRun(t, []string{"-metrics-addr", ":9464"}, nil); f.metricsAddr != ":9464" {
		t.Fatalf("-metrics-addr :9464 gave %q", f.metricsAddr)
	}
}
