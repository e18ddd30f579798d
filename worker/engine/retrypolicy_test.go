package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// enqueueBound inserts one available job on queue q with its own bound.
func (e *env) enqueueBound(maxAttempts int) ulid.ULID {
	e.t.Helper()
	var id ulid.ULID
	e.inTx(func(tx store.Tx) error {
		now, _ := tx.Now(e.ctx)
		id = clockrng.NewULID(now, e.rnd)
		_, err := tx.InsertJobs(e.ctx, []store.NewJob{{ID: id, Queue: "q", Payload: json.RawMessage(`{}`), MaxAttempts: maxAttempts}})
		return err
	})
	return id
}

// runUntilQuiet ticks c every second for n seconds, answering each job it
// starts with answer, and returns the attempts started in order.
func (e *env) runUntilQuiet(c *Core, n int, answer func(store.Job) Result) []store.Job {
	e.t.Helper()
	var started []store.Job
	for range n {
		for _, j := range e.tick(c) {
			started = append(started, j)
			c.finished(answer(j))
		}
		e.advance(time.Second)
	}
	return started
}

var errGateway = errors.New("gateway busy")

// A queue's policy bounds its jobs' attempts and decides their delays from
// the attempt and the handler's error; a job's own bound wins over it.
func TestQueuePolicyBoundsAndDelays(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	var seen []error
	cfg.Policies = map[string]RetryPolicy{"q": {MaxAttempts: 2, Delay: func(attempt int, err error, r *clockrng.Rand) time.Duration {
		seen = append(seen, err)
		return time.Duration(attempt+1) * 7 * time.Second
	}}}
	c, rec := e.core(cfg, 1)
	plain, own := e.enqueueBound(0), e.enqueueBound(3)
	e.runUntilQuiet(c, 60, func(j store.Job) Result {
		return Result{JobID: j.ID, Decision: Retry, Reason: errGateway.Error(), Err: errGateway}
	})
	runs := map[ulid.ULID]int{}
	for _, r := range rec.of(EventRetryScheduled) {
		if want := time.Duration(r.Job.Attempt+1) * 7 * time.Second; r.Delay != want || !r.Next.ScheduledAt.Equal(r.StoreTime.Add(want)) {
			t.Errorf("retry of attempt %d after %v (at %v), want %v", r.Job.Attempt, r.Delay, r.Next.ScheduledAt, want)
		}
	}
	for _, j := range e.jobs("") {
		root := j.ID
		for prev := e.prevOf(j.ID); !prev.IsZero(); prev = e.prevOf(prev) {
			root = prev
		}
		runs[root]++
	}
	if runs[plain] != 2 || runs[own] != 3 {
		t.Fatalf("the queue's job ran %d times (want its policy's 2), the job with its own bound %d (want 3)", runs[plain], runs[own])
	}
	for _, err := range seen {
		if !errors.Is(err, errGateway) {
			t.Fatalf("the policy's delay got error %v, want the handler's", err)
		}
	}
	abandoned := rec.of(EventRetryAbandoned)
	if len(abandoned) != 2 || !strings.Contains(abandoned[0].Reason+abandoned[1].Reason, "queue q's max attempts, 2") ||
		!strings.Contains(abandoned[0].Reason+abandoned[1].Reason, "the job's own max attempts, 3") {
		t.Fatalf("abandoned %v, want one for each bound, saying which", abandoned)
	}
}

// prevOf returns the row whose next attempt is id, zero for none.
func (e *env) prevOf(id ulid.ULID) ulid.ULID {
	for _, j := range e.jobs("") {
		if j.NextAttemptID == id {
			return j.ID
		}
	}
	return ulid.ULID{}
}

// A leader rescuing a job applies the job's own bound even without a
// policy for its queue, and its own policy's delay with an error that
// says the job was lost.
func TestRescueAppliesTheJobsOwnBound(t *testing.T) {
	e := newEnv(t)
	var lostErr error
	leaderCfg := testConfig()
	leaderCfg.Queues = []string{"other"}
	leaderCfg.Policies = map[string]RetryPolicy{"q": {Delay: func(attempt int, err error, r *clockrng.Rand) time.Duration {
		lostErr = err
		return time.Second
	}}}
	b, recB := e.core(leaderCfg, 2)
	e.tick(b)
	a, _ := e.core(testConfig(), 1)
	once, twice := e.enqueueBound(1), e.enqueueBound(0)
	e.tick(a)
	for range 10 {
		e.advance(30 * time.Second)
		e.tick(b)
	}
	if got := e.job(once); got.Status != store.Lost || !got.NextAttemptID.IsZero() {
		t.Fatalf("the job bound to one attempt after its rescue: %s", store.FormatJob(got))
	}
	if got := e.job(twice); got.Status != store.Lost || got.NextAttemptID.IsZero() {
		t.Fatalf("the job without a bound after its rescue: %s", store.FormatJob(got))
	}
	if !errors.Is(lostErr, ErrJobLost) || !strings.Contains(lostErr.Error(), "declared dead") {
		t.Fatalf("the delay of a rescued job's retry got %v, want an error wrapping ErrJobLost", lostErr)
	}
	if n := recB.count(EventRetryAbandoned); n != 1 {
		t.Fatalf("%d rescued jobs abandoned, want the one bound to one attempt", n)
	}
}

// A snooze keeps the attempt, counts one more snooze and waits its delay
// in store time; past MaxSnoozes the job fails for good.
func TestSnoozeKeepsTheAttempt(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.MaxSnoozes = 2
	c, rec := e.core(cfg, 1)
	id := e.enqueueBound(1) // one attempt: a snooze must not use it up
	started := e.runUntilQuiet(c, 30, func(j store.Job) Result {
		return Result{JobID: j.ID, Decision: Snooze, Snooze: 3 * time.Second}
	})
	if len(started) != 3 {
		t.Fatalf("%d runs, want the first and two snoozes", len(started))
	}
	for i, j := range started {
		if j.Attempt != 0 || j.Snoozes != i {
			t.Fatalf("run %d is attempt %d after %d snoozes, want attempt 0 after %d", i, j.Attempt, j.Snoozes, i)
		}
	}
	snoozed := rec.of(EventJobSnoozed)
	if len(snoozed) != 2 || snoozed[0].Job.ID != id {
		t.Fatalf("snooze events %v", snoozed)
	}
	for _, s := range snoozed {
		old := e.job(s.Job.ID)
		if old.Status != store.Snoozed || old.NextAttemptID != s.Next.ID || !s.Next.ScheduledAt.Equal(old.CompletedAt.Add(3*time.Second)) {
			t.Fatalf("snoozed row %s, next row %s", store.FormatJob(old), store.FormatJob(*s.Next))
		}
	}
	last := e.job(started[2].ID)
	if last.Status != store.Failed || !strings.Contains(last.FailedReason, "MaxSnoozes") || !last.NextAttemptID.IsZero() {
		t.Fatalf("the third snooze, past MaxSnoozes 2: %s", store.FormatJob(last))
	}
}

// A schedule with a unique key skips a cron time while another row holds
// the key, and runs again once it is free, carrying the key.
func TestScheduleSkipsWhileItsKeyIsHeld(t *testing.T) {
	e := newEnv(t)
	cfg := scheduleConfig("*/10 * * * * *")
	cfg.Schedules[0].UniqueKey = "report"
	c, rec := e.core(cfg, 1)
	var holder ulid.ULID
	e.inTx(func(tx store.Tx) error {
		now, _ := tx.Now(e.ctx)
		holder = clockrng.NewULID(now, e.rnd)
		_, err := tx.InsertJobs(e.ctx, []store.NewJob{{ID: holder, Queue: "manual", Payload: json.RawMessage(`{}`), UniqueKey: "report"}})
		return err
	})
	for range 25 {
		e.tick(c)
		e.advance(time.Second)
	}
	skipped := rec.of(EventScheduleSkipped)
	if len(skipped) != 3 || skipped[0].Job.ID != holder || rec.count(EventScheduleFired) != 0 {
		t.Fatalf("skips %v and %d runs while another job holds the key, want the 10, 20 and 30 s cron times skipped", skipped, rec.count(EventScheduleFired))
	}
	if sc := e.state().Schedules[0]; !sc.LastScheduledAt.Equal(epoch.Add(30*time.Second)) || !sc.LastScheduledJobID.IsZero() {
		t.Fatalf("schedule row %+v, want it at the last cron time skipped, pointing at no run", sc)
	}
	e.inTx(func(tx store.Tx) error { _, err := tx.CancelJob(e.ctx, holder); return err })
	for range 10 {
		e.tick(c)
		e.advance(time.Second)
	}
	fired := rec.of(EventScheduleFired)
	if len(fired) != 1 || !fired[0].CronTime.Equal(epoch.Add(40*time.Second)) {
		t.Fatalf("runs %v once the key is free, want one at 40 s", fired)
	}
	if run := e.job(fired[0].Job.ID); !run.Holds() || !strings.HasPrefix(run.UniqueKey, "report|") {
		t.Fatalf("the run does not hold the schedule's key: %s", store.FormatJob(run))
	}
}

func TestValidateRefusesBadPoliciesAndKeys(t *testing.T) {
	cfg := testConfig()
	cfg.MaxSnoozes = -1
	cfg.Policies = map[string]RetryPolicy{"q": {MaxAttempts: store.MaxJobAttempts + 1}, "": {MaxAttempts: 1}}
	cfg.Schedules = []ScheduleSpec{{Name: "s", Cron: "* * * * * *", Queue: "q", Payload: []byte(`{}`), UniqueKey: "k\x00"}}
	err := cfg.Validate()
	for _, want := range []string{"MaxSnoozes is -1", `retry policy of queue "q": MaxAttempts is 1001`, "retry policy: queue name", `schedule "s": unique key`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want it to say %q", err, want)
		}
	}
}
