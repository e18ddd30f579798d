package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/tickworktest"
	"github.com/tickwork/tickwork/worker"
)

// -schedule's optional unique=KEY field reaches the configuration, and
// prints back as it was given; a key the store refuses is a usage error
// naming the schedule.
func TestScheduleFlagUniqueKey(t *testing.T) {
	var f runFlags
	fs := newFlagSet("worker run", runSynopsis, new(strings.Builder))
	f.register(fs)
	args := []string{"-schedule", `beat|*/2 * * * * *|noop| unique=nightly |{"a": "x|y"}`, "-max-snoozes", "7"}
	if _, err := parseFlags(fs, args, fakeEnv(nil)); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Schedules[0]; s.UniqueKey != "nightly" || string(s.Payload) != `{"a": "x|y"}` || cfg.MaxSnoozes != 7 {
		t.Fatalf("schedule %+v, max snoozes %d", s, cfg.MaxSnoozes)
	}
	if got := (scheduleFlag{&cfg.Schedules}).String(); got != `beat|*/2 * * * * *|noop|unique=nightly|{"a": "x|y"}` {
		t.Fatalf("the flag prints back as %q", got)
	}
	env := map[string]string{"DATABASE_URL": "postgres://h/d"}
	for _, tc := range []struct{ value, want string }{
		{"beat|*/2 * * * * *|noop|unique=|{}", `schedule "beat": unique= names no key`},
		{"beat|*/2 * * * * *|noop|unique=" + strings.Repeat("k", 300) + "|{}", `schedule "beat": unique key`},
	} {
		code, _, stderr := runCLI(t, env, "run", "-schedule", tc.value)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("-schedule %.60q: exit %d, stderr lacks %q:\n%s", tc.value, code, tc.want, stderr)
		}
	}
	code, _, stderr := runCLI(t, env, "run", "-max-snoozes", "-1")
	if code != exitUsage || !strings.Contains(stderr, "-max-snoozes") {
		t.Errorf("-max-snoozes -1: exit %d, stderr:\n%s", code, stderr)
	}
}

// enqueue -max-attempts stores the job's own bound; out of range it is
// refused, naming the flag.
func TestEnqueueMaxAttempts(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", "{}", "-max-attempts", "3")...)
	if code != exitOK {
		t.Fatalf("enqueue -max-attempts 3: exit %d, stderr:\n%s", code, stderr)
	}
	if j := getJob(t, st, ulid.MustParseStrict(strings.TrimSpace(stdout))); j.MaxAttempts != 3 {
		t.Fatalf("the job's own bound is %d, want 3", j.MaxAttempts)
	}
	code, _, stderr = runCLI(t, nil, cmdArgs([]string{"enqueue"}, db, "-queue", "noop", "-payload", "{}", "-max-attempts", "1001")...)
	if code != exitUsage || !strings.Contains(stderr, "-max-attempts") {
		t.Fatalf("enqueue -max-attempts 1001: exit %d, stderr:\n%s", code, stderr)
	}
}

// A webhook answer's Retry-After (in seconds) decides the retry's delay;
// without one the worker's backoff does, and -webhook-max-attempts bounds
// the attempts.
func TestWebhookRetryAfterAndMaxAttempts(t *testing.T) {
	answers := []string{"7", "", "soon"}
	ts, _ := recordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if a := answers[0]; a != "" {
			w.Header().Set("Retry-After", a)
		}
		answers = answers[1:]
		w.WriteHeader(http.StatusTooManyRequests)
	})
	kit := tickworktest.New(t, tickworktest.Options{})
	sender := newWebhookSender(true, 5*time.Second)
	defer sender.close()
	cfg := worker.DefaultConfig()
	cfg.Queues = []string{"webhook"}
	if err := registerHandlers(kit.Worker(), cfg, sender, 3); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(webhookPayload{URL: ts.URL})
	if _, err := worker.Enqueue(t.Context(), kit.Client(), json.RawMessage(payload), worker.WithQueue("webhook")); err != nil {
		t.Fatal(err)
	}
	attempts := kit.Drain()
	if len(attempts) != 3 || attempts[2].Retry != nil {
		t.Fatalf("%d attempts, want -webhook-max-attempts 3, the last without a retry", len(attempts))
	}
	want := []time.Duration{7 * time.Second, clockrng.DefaultBackoff().Nominal(1)}
	for i, w := range want {
		if d := attempts[i].Retry.ScheduledAt.Sub(attempts[i].Job.FailedAt); d != w {
			t.Errorf("attempt %d retried after %v, want %v", i, d, w)
		}
	}
}

// jobs show of a snoozed job prints its chain: the snoozed row with how
// long it snoozed, then the row that runs the same attempt after one
// snooze; -format json carries the counts.
func TestJobsShowASnoozedChain(t *testing.T) {
	st := pgtest.OpenWith(t, pg.Options{})
	db := dbArgs(t, st.Schema())
	ids := insertJobs(t, st, "reports", `{}`)
	ctx := context.Background()
	var next store.Job
	err := st.InTx(ctx, func(tx store.Tx) error {
		now, err := tx.Now(ctx)
		if err != nil {
			return err
		}
		rnd := clockrng.NewRandFromOS()
		w := clockrng.NewULID(now, rnd)
		if err := tx.RegisterWorker(ctx, w); err != nil {
			return err
		}
		if _, err := tx.Reserve(ctx, w, []string{"reports"}, 1); err != nil {
			return err
		}
		next, err = tx.SnoozeJob(ctx, w, ids[0], clockrng.NewULID(now, rnd), 90*time.Second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, cmdArgs([]string{"jobs", "show"}, db, next.ID.String())...)
	if code != exitOK || !strings.Contains(stdout, "snoozed for 1m30s") || !strings.Contains(stdout, "SNOOZES") ||
		!strings.Contains(stdout, "snoozes:       1") {
		t.Errorf("jobs show of a snooze's row: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, nil, cmdArgs([]string{"jobs", "show", "-format", "json"}, db, next.ID.String())...)
	if code != exitOK || !strings.Contains(stdout, `"snoozes": 1`) || !strings.Contains(stdout, `"status": "snoozed"`) {
		t.Errorf("jobs show -format json: exit %d, stdout:\n%s", code, stdout)
	}
}
