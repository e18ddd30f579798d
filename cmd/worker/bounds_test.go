package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

// commandFlagSets returns a flag set per command with its own flags, as
// the commands register them.
func commandFlagSets() map[string]*flag.FlagSet {
	sets := map[string]*flag.FlagSet{}
	for name, register := range map[string]func(*flag.FlagSet){
		"run":       new(runFlags).register,
		"enqueue":   new(enqueueFlags).register,
		"jobs list": new(listFlags).register,
		"migrate":   new(dbFlags).register,
	} {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		register(fs)
		sets[name] = fs
	}
	return sets
}

// Every numeric flag of every command has a range, given in its help text,
// and a value just past either end of it is refused with exit 2 by a
// message naming the flag, the value and the range — from the command line
// and from the environment alike.
func TestEveryNumericFlagIsBounded(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://h/d"}
	checked := 0
	for command, fs := range commandFlagSets() {
		fs.VisitAll(func(f *flag.Flag) {
			var tooBig, tooSmall, rng string
			switch v := f.Value.(type) {
			case intFlag:
				tooBig, tooSmall, rng = fmt.Sprint(v.max+1), fmt.Sprint(v.min-1), fmt.Sprintf("%d to %d", v.min, v.max)
			case durationFlag:
				tooBig, tooSmall, rng = (v.max + time.Millisecond).String(), (v.min - time.Millisecond).String(), fmtDuration(v.min)+" to "+fmtDuration(v.max)
			default:
				if g, ok := f.Value.(flag.Getter); ok {
					switch g.Get().(type) {
					case int, int64, uint, uint64, float64, time.Duration:
						t.Errorf("worker %s -%s is numeric without a range", command, f.Name)
					}
				}
				return
			}
			checked++
			if !strings.Contains(f.Usage, rng) {
				t.Errorf("worker %s -%s: help %q does not give the range %s", command, f.Name, f.Usage, rng)
			}
			args := strings.Fields(command)
			for _, bad := range []string{tooBig, tooSmall} {
				code, _, stderr := runCLI(t, env, append(args, "-"+f.Name, bad)...)
				want := fmt.Sprintf("-%s %q: out of range: want %s", f.Name, bad, rng)
				if code != exitUsage || !strings.Contains(stderr, want) {
					t.Errorf("worker %s -%s %s: exit %d, stderr:\n%s\nwant 2 and %q", command, f.Name, bad, code, stderr, want)
				}
				code, _, stderr = runCLI(t, map[string]string{"DATABASE_URL": "postgres://h/d", envName(f.Name): bad}, args...)
				want = fmt.Sprintf("environment variable %s=%q: out of range: want %s", envName(f.Name), bad, rng)
				if code != exitUsage || !strings.Contains(stderr, want) {
					t.Errorf("worker %s with %s=%s: exit %d, stderr:\n%s\nwant 2 and %q", command, envName(f.Name), bad, code, stderr, want)
				}
			}
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d numeric flags; the commands have more", checked)
	}
}

func TestConcurrencyOfABillionIsRefused(t *testing.T) {
	code, _, stderr := runCLI(t, map[string]string{"DATABASE_URL": "postgres://h/d"}, "run", "-concurrency", "1000000000")
	if want := `-concurrency "1000000000": out of range: want 1 to 10000`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant 2 and %q", code, stderr, want)
	}
}

// More lanes than jobs that may run at once would leave a lane without one.
func TestLanesBeyondConcurrencyAreRefused(t *testing.T) {
	code, _, stderr := runCLI(t, map[string]string{"DATABASE_URL": "postgres://h/d"}, "run", "-concurrency", "2", "-lanes", "3")
	if want := "-lanes 3 is more than -concurrency 2"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant 2 and %q", code, stderr, want)
	}
}

// A value that does not parse is answered with the form expected.
func TestUnparsableValuesNameTheExpectedForm(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"run"}, map[string]string{"TICKWORK_CONCURRENCY": "ten"}, `environment variable TICKWORK_CONCURRENCY="ten": want a whole number from 1 to 10000`},
		{[]string{"run", "-drain-timeout", "30"}, nil, `-drain-timeout "30": want a duration such as 30s`},
		{[]string{"run"}, map[string]string{"TICKWORK_DRAIN_TIMEOUT": "30"}, `environment variable TICKWORK_DRAIN_TIMEOUT="30": want a duration such as 30s`},
		{[]string{"jobs", "list", "-limit", "many"}, nil, `-limit "many": want a whole number from 1 to 10000`},
		{[]string{"run", "-webhook-allow-private=yes"}, nil, `-webhook-allow-private "yes": want true or false`},
		{[]string{"run"}, map[string]string{"TICKWORK_WEBHOOK_ALLOW_PRIVATE": "yes"}, `environment variable TICKWORK_WEBHOOK_ALLOW_PRIVATE="yes": want true or false`},
		{[]string{"run", "-concurrency", strings.Repeat("9", 5000)}, nil, `-concurrency "` + strings.Repeat("9", 40) + `"… (5000 bytes): want a whole number`},
	} {
		env := map[string]string{"DATABASE_URL": "postgres://h/d"}
		for k, v := range tc.env {
			env[k] = v
		}
		code, _, stderr := runCLI(t, env, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("worker %s with %v: exit %d, stderr:\n%s\nwant 2 and %q", shownArgs(tc.args), tc.env, code, stderr, tc.want)
		}
	}
}

func TestShownCutsLongValues(t *testing.T) {
	for in, want := range map[string]string{
		"noop":                      `"noop"`,
		strings.Repeat("q", 40):     `"` + strings.Repeat("q", 40) + `"`,
		strings.Repeat("q", 1e4):    `"` + strings.Repeat("q", 40) + `"… (10000 bytes)`,
		strings.Repeat("é", 100):    `"` + strings.Repeat("é", 20) + `"… (200 bytes)`,
		"a\x1b[31mred" + "\n\t\x00": `"a\x1b[31mred\n\t\x00"`,
	} {
		if got := shown(in); got != want {
			t.Errorf("shown(%.50q) = %s, want %s", in, got, want)
		}
	}
}
