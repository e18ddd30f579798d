package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

func scheduleConfig(cron string) Config {
	cfg := testConfig()
	cfg.Schedules = []ScheduleSpec{{Name: "every10s", Cron: cron, Queue: "q", Payload: []byte(`{"s":1}`)}}
	return cfg
}

// A schedule fires once per cron time, at that time, and its jobs run.
func TestScheduleFiresOncePerCronTime(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(scheduleConfig("*/10 * * * * *"), 1)
	for range 65 {
		for _, j := range e.tick(a) {
			if e.storeNow().Before(j.ScheduledAt) {
				t.Fatalf("job %s started at %v before its cron time %v", j.ID, e.storeNow(), j.ScheduledAt)
			}
			a.finished(Result{JobID: j.ID, Decision: Succeed})
		}
		e.advance(time.Second)
	}
	fired := rec.of(EventScheduleFired)
	seen := map[time.Time]bool{}
	for i, f := range fired {
		if seen[f.CronTime] {
			t.Fatalf("cron time %v fired twice", f.CronTime)
		}
		seen[f.CronTime] = true
		if want := epoch.Add(time.Duration(i+1) * 10 * time.Second); !f.CronTime.Equal(want) {
			t.Errorf("run %d at %v, want %v", i, f.CronTime, want)
		}
	}
	if len(fired) != 7 {
		t.Fatalf("%d runs enqueued in 65 s of a 10 s schedule, want 7 (10 s … 60 s ran, 70 s waits)", len(fired))
	}
	if n := len(e.jobs(store.Completed)); n != 6 {
		t.Fatalf("%d runs completed, want 6", n)
	}
}

// While a run is still going, no later run is enqueued; cron times missed
// meanwhile are skipped, not made up.
func TestScheduleNeverOverlaps(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(scheduleConfig("*/10 * * * * *"), 1)
	var running []store.Job
	for range 45 { // the first run starts at 10 s and runs until 44 s
		running = append(running, e.tick(a)...)
		e.advance(time.Second)
	}
	if len(running) != 1 || rec.count(EventScheduleFired) != 1 {
		t.Fatalf("started %d runs and fired %d, want one of each while the first runs", len(running), rec.count(EventScheduleFired))
	}
	finishAll(a, Succeed, "")
	e.tick(a)
	e.advance(time.Second)
	e.tick(a)
	fired := rec.of(EventScheduleFired)
	if len(fired) != 2 || !fired[1].CronTime.Equal(epoch.Add(50*time.Second)) {
		t.Fatalf("runs %v, want the second at 50 s (20, 30 and 40 s skipped)", fired)
	}
}

// A failed run retried is still the same run: the schedule follows the
// retry chain and fires again only after the last attempt ended.
func TestScheduleFollowsRetryChain(t *testing.T) {
	e := newEnv(t)
	cfg := scheduleConfig("*/10 * * * * *")
	cfg.MaxRetries = 1
	cfg.Backoff.Base = 15 * time.Second // the retry outlasts the next cron time
	a, rec := e.core(cfg, 1)
	var attempts []int
	for range 40 {
		for _, j := range e.tick(a) {
			attempts = append(attempts, j.Attempt)
			a.finished(Result{JobID: j.ID, Decision: Retry, Reason: "flaky"})
		}
		e.advance(time.Second)
	}
	// Run 1: attempt 0 at 10 s, its retry due at 25 s; the 20 s cron time
	// passes while the retry waits, so run 2 is at 30 s.
	if want := []int{0, 1, 0}; !slices.Equal(attempts, want) {
		t.Fatalf("attempts %v, want %v", attempts, want)
	}
	fired := rec.of(EventScheduleFired)
	if len(fired) != 2 || !fired[1].CronTime.Equal(epoch.Add(30*time.Second)) {
		t.Fatalf("runs %v, want two, the second at 30 s", fired)
	}
	retry := e.job(e.job(fired[0].Job.ID).NextAttemptID)
	if retry.Attempt != 1 || retry.ScheduleName != "every10s" {
		t.Fatalf("first run's retry %+v, want attempt 1 of the schedule", retry)
	}
}

// Under the database's clock a duty transaction's now is its start, so it
// can read a run that ended after that now (the ending transaction began
// later and committed first). The next run waits for a later pass, so that
// it is not created, in store time, before the previous one ended (the
// live chaos run's property 7 saw one such run).
func TestScheduleWaitsForARunThatEndedAfterNow(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(scheduleConfig("*/10 * * * * *"), 1)
	var started []store.Job
	for range 12 { // the first run is enqueued at once, promoted at 10 s, started at 11 s
		started = append(started, e.tick(a)...)
		e.advance(time.Second)
	}
	if len(started) != 1 || rec.count(EventScheduleFired) != 1 {
		t.Fatalf("started %d runs and fired %d, want one of each", len(started), rec.count(EventScheduleFired))
	}
	e.advance(time.Second) // the run's completion is stamped a second later ...
	e.inTx(func(tx store.Tx) error {
		_, err := tx.CompleteJobs(e.ctx, store.Completion{Worker: started[0].StartedBy, IDs: ids(started)})
		return err
	})
	e.advance(-1500 * time.Millisecond) // ... than the next duties' now (a leader pass after the last)
	e.tick(a)
	if n := rec.count(EventScheduleFired); n != 1 {
		t.Fatalf("a run was enqueued before, in store time, the previous one ended (%d fired)", n)
	}
	e.advance(3 * time.Second)
	e.tick(a)
	if n := rec.count(EventScheduleFired); n != 2 {
		t.Fatalf("%d runs fired once the store time passed the previous run's end, want 2", n)
	}
}
