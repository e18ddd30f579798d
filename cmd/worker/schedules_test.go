package main

import (
	"strings"
	"testing"

	"github.com/tickwork/tickwork/worker"
)

// A -schedule that does not parse, or whose cron expression or payload is
// invalid, stops worker run at start with a usage error naming the
// schedule.
func TestScheduleFlagMistakes(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://h/d"}
	for _, tc := range []struct{ value, want string }{
		{"beat|* * *|noop|{}", `schedule "beat": cron expression "* * *" (want 6 fields, seconds first)`},
		{"beat|TZ=Europe/Paris 0 0 3 * * *|noop|{}", `schedule "beat": cron expression "TZ=Europe/Paris 0 0 3 * * *" names a time zone`},
		{"beat|*/2 * * * * *|noop", "want NAME|CRON|QUEUE|PAYLOAD"},
		{"beat|*/2 * * * * *|noop|{nope", `schedule "beat": payload "{nope" is not valid JSON`},
		{`hook|*/2 * * * * *|webhook|{"url": "ftp://x"}`, `schedule "hook": payload for queue "webhook"`},
		{"feb30|0 0 0 30 2 *|noop|{}", `schedule "feb30": cron expression "0 0 0 30 2 *" matches no time within 5 years: it never fires`},
	} {
		code, _, stderr := runCLI(t, env, "run", "-schedule", tc.value)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("-schedule %q: exit %d, stderr lacks %q:\n%s", tc.value, code, tc.want, stderr)
		}
	}
	code, _, stderr := runCLI(t, env, "run", "-schedule", "a|*/2 * * * * *|noop|{}", "-schedule", "a|*/3 * * * * *|noop|{}")
	if code != exitUsage || !strings.Contains(stderr, `schedule "a" is listed twice`) {
		t.Errorf("a schedule given twice: exit %d, stderr:\n%s", code, stderr)
	}
}

// Each -schedule becomes one schedule of the worker's configuration.
func TestScheduleFlagsReachTheConfig(t *testing.T) {
	var f runFlags
	fs := newFlagSet("worker run", runSynopsis, new(strings.Builder))
	f.register(fs)
	args := []string{"-schedule", "beat|*/2 * * * * *|noop|{\"n\": 1}", "-schedule", " nightly | 0 0 3 * * * | emails | {} "}
	if _, err := parseFlags(fs, args, fakeEnv(nil)); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	want := []worker.ScheduleSpec{
		{Name: "beat", Cron: "*/2 * * * * *", Queue: "noop", Payload: []byte(`{"n": 1}`)},
		{Name: "nightly", Cron: "0 0 3 * * *", Queue: "emails", Payload: []byte(`{}`)},
	}
	if len(cfg.Schedules) != len(want) {
		t.Fatalf("schedules %+v, want %+v", cfg.Schedules, want)
	}
	for i, s := range cfg.Schedules {
		if s.Name != want[i].Name || s.Cron != want[i].Cron || s.Queue != want[i].Queue || string(s.Payload) != string(want[i].Payload) {
			t.Errorf("schedule %d: %+v, want %+v", i, s, want[i])
		}
	}
}
