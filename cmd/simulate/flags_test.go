package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// traceHash is the trace hash a replay printed.
func traceHash(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`trace hash ([0-9a-f]{16})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no trace hash in:\n%s", out)
	}
	return m[1]
}

// The JSON -print-scenario prints, overrides included, replays the very
// run of its seed through -scenario.
func TestPrintScenarioReplaysTheSeed(t *testing.T) {
	args := []string{"-seed", "9", "-workers", "3", "-duration", "15s", "-faults=+crash"}
	status, js, errOut := runArgs(t, append(args, "-print-scenario")...)
	if status != 0 || !strings.HasPrefix(js, `{"seed":9,"workers":3,`) || strings.Count(js, "\n") != 1 {
		t.Fatalf("-print-scenario: status %d, output %q %s", status, js, errOut)
	}
	_, bySeed, _ := runArgs(t, args...)
	status, byJSON, errOut := runArgs(t, "-scenario", strings.TrimSpace(js))
	if status != 0 && status != 1 {
		t.Fatalf("-scenario of the printed JSON: status %d: %s", status, errOut)
	}
	if a, b := traceHash(t, bySeed), traceHash(t, byJSON); a != b {
		t.Fatalf("seed 9 gave trace hash %s, its printed scenario %s", a, b)
	}
}

// What cannot work, or would silently drop a flag, is a usage error
// (status 2) that names the flag.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-duration", "1000h"}, "-duration 1000h0m0s is out of range"},
		{[]string{"-seed", "-2"}, `invalid value "-2" for flag -seed`},
		{[]string{"-seeds", "3", "-v"}, "use them with -seed N or -scenario"},
		{[]string{"-print-scenario"}, "use them with -seed N or -scenario"},
		{[]string{"-seed", "1", "-print-scenario", "-v"}, "-print-scenario prints the scenario of -seed without running it"},
		{[]string{"-seed", "1", "-seeds", "5"}, "-seeds is for runs of many seeds"},
		{[]string{"-seed", "1", "-scenario", "{}"}, "give one"},
		{[]string{"-scenario", "{}", "-workers", "2"}, "edit the -scenario JSON instead"},
		{[]string{"-workers", "101"}, "-workers 101 is out of range"},
		{[]string{"-parallel", "0"}, "-parallel 0 is out of range"},
		{[]string{"-from", "9223372036854775807", "-seeds", "2"}, "-from 9223372036854775807 with -seeds 2 is out of range"},
		{[]string{"-seed", "1", "-store", "pg"}, "-store pg compares whole runs of -seeds"},
	} {
		status, out, errOut := runArgs(t, c.args...)
		if status != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("simulate %q: status %d, stderr %q, stdout %q; want status 2 and %q", c.args, status, errOut, out, c.want)
		}
	}
}

// A -scenario is held to the bounds of the flags.
func TestScenarioBeyondBoundsIsRefused(t *testing.T) {
	_, js, _ := runArgs(t, "-seed", "2", "-print-scenario")
	long := regexp.MustCompile(`"chaos":"[^"]*"`).ReplaceAllString(strings.TrimSpace(js), `"chaos":"1000h"`)
	status, _, errOut := runArgs(t, "-scenario", long)
	if status != 2 || !strings.Contains(errOut, "chaos 1000h0m0s") {
		t.Fatalf("a 1000h scenario: status %d, %s", status, errOut)
	}
}

// A run of many seeds reports its progress on stderr, never in the
// summary on stdout.
func TestProgressOnStderr(t *testing.T) {
	cfg, err := parseFlags([]string{"-parallel", "1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	cfg.progress, cfg.progressEvery = &progress, time.Millisecond
	sum, err := runSeeds(cfg, 1, 30)
	if err != nil || sum.seeds != 30 {
		t.Fatalf("runSeeds: %v after %d seeds", err, sum.seeds)
	}
	if !regexp.MustCompile(`simulate: \d+ of 30 seeds done, \d+ failed, `).MatchString(progress.String()) {
		t.Fatalf("no progress line in %q", progress.String())
	}
}
