package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// driven is a policy stepped by hand: store calls run at once against the
// test's store, everything else is returned for the test to look at.
type driven struct {
	e   *env
	p   *Policy
	rec *recorder
}

func newDriven(e *env, cfg Config) *driven {
	c, rec := e.core(cfg, 1)
	return &driven{e: e, p: NewPolicy(c), rec: rec}
}

// step steps in and carries out store calls until the policy returns
// actions that are not a call; it returns those, with each call made on
// the way listed as "call N" in calls.
func (d *driven) step(in Input) (acts []Action, calls []Call) {
	d.e.t.Helper()
	acts = d.p.Step(in)
	for len(acts) > 0 && acts[len(acts)-1].Kind == ActCall {
		a := acts[len(acts)-1]
		calls = append(calls, a.Call)
		rest := slices.Clone(acts[:len(acts)-1]) // Step reuses its slice
		acts = append(rest, d.p.Step(d.p.Do(d.e.ctx, a, d.e.storeNow()))...)
	}
	return acts, calls
}

// describe renders actions compactly: "start 2", "arm poll 1s", "cancel",
// "exit <nil>".
func describe(acts []Action) string {
	var out []string
	for _, a := range acts {
		switch a.Kind {
		case ActStart:
			out = append(out, fmt.Sprintf("start %d", len(a.Jobs)))
		case ActArm:
			out = append(out, fmt.Sprintf("arm %s %v", timerNames[a.Timer], a.After))
		case ActCancelRunning:
			out = append(out, "cancel")
		case ActCancelJobs:
			out = append(out, fmt.Sprintf("cancel %d by %s", len(a.JobIDs), a.Reason))
		case ActExit:
			out = append(out, fmt.Sprintf("exit %v", a.Err))
		case ActCall:
			out = append(out, fmt.Sprintf("call %d", a.Call))
		case ActQueueDrained:
			out = append(out, "drained "+a.Queue)
		}
	}
	return strings.Join(out, ", ")
}

var timerNames = [NumTimers]string{"poll", "linger", "drain", "grace", "retry"}

func (d *driven) want(in Input, want string) []Action {
	d.e.t.Helper()
	acts, _ := d.step(in)
	if got := describe(acts); got != want {
		d.e.t.Fatalf("step %+v: actions %q, want %q", in.Kind, got, want)
	}
	return acts
}

// A graceful shutdown waits for the drain deadline, cancels the running
// jobs' contexts, waits the grace (DrainTimeout/10, at most 1 s), releases
// what did not return, records the shutdown and exits.
func TestPolicyDrainCancelGraceRelease(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.DrainTimeout = 5 * time.Second
	d := newDriven(e, cfg)
	ids := e.enqueue("q", 2)
	start := d.want(Input{Kind: InStarted}, "start 2, arm poll 1s")
	d.want(Input{Kind: InStop}, "arm drain 5s")
	d.want(Input{Kind: InTimer, Timer: TimerDrain}, "cancel, arm grace 500ms")
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: start[0].Jobs[0].ID, Decision: Retry, Reason: "context canceled"}}, "")
	acts, calls := d.step(Input{Kind: InTimer, Timer: TimerGrace})
	if got := describe(acts); got != "exit <nil>" || len(calls) != 2 || calls[0] != CallRelease || calls[1] != CallShutdown {
		t.Fatalf("after the grace: calls %v, actions %q; want release, shutdown, exit", calls, got)
	}
	if r := e.job(ids[1]); r.Status != store.Failed || r.FailedReason != ReasonShutdown {
		t.Fatalf("the job still running at the grace: %+v, want failed %q", r, ReasonShutdown)
	}
	if r := e.job(ids[0]); r.FailedReason != "context canceled" {
		t.Fatalf("the job that returned: %+v, want its own result recorded", r)
	}
	if !d.p.Exited() || len(d.rec.of(EventDrainDeadline)) != 1 {
		t.Fatalf("exited %v, drain-deadline events %d", d.p.Exited(), len(d.rec.of(EventDrainDeadline)))
	}
}

// The drain ends as soon as the last running job returns.
func TestPolicyDrainEndsWhenJobsReturn(t *testing.T) {
	e := newEnv(t)
	d := newDriven(e, testConfig())
	e.enqueue("q", 1)
	start := d.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	d.want(Input{Kind: InStop}, "arm drain 30s")
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: start[0].Jobs[0].ID}}, "exit <nil>")
	if got := e.jobs(store.Completed); len(got) != 1 {
		t.Fatalf("completed rows %d, want 1", len(got))
	}
}

// A shutdown transaction that keeps failing is tried ShutdownAttempts
// times with the error backoff between tries, then given up with an error.
func TestPolicyShutdownGivesUpAfterAttempts(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	d := newDriven(e, cfg)
	d.want(Input{Kind: InStarted}, "arm poll 1s")
	e.st.failBefore = func([]string) bool { return true }
	acts, calls := d.step(Input{Kind: InStop})
	for try := 1; try < ShutdownAttempts; try++ {
		want := fmt.Sprintf("arm retry %v", errorBackoff(cfg, try))
		if got := describe(acts); got != want || len(calls) != 1 || calls[0] != CallShutdown {
			t.Fatalf("try %d: calls %v, actions %q; want one shutdown, %q", try, calls, got, want)
		}
		acts, calls = d.step(Input{Kind: InTimer, Timer: TimerRetry})
	}
	if len(acts) != 1 || acts[0].Kind != ActExit || !errors.Is(acts[0].Err, store.ErrUnavailable) {
		t.Fatalf("after %d failures: %q, want exit with the store's error", ShutdownAttempts, describe(acts))
	}
	if ab := d.rec.of(EventShutdownAbandoned); len(ab) != 1 || ab[0].Count != ShutdownAttempts {
		t.Fatalf("abandon events %v, want one after %d tries", ab, ShutdownAttempts)
	}
}

// startedWithOnePlace starts a runner with one place (MaxConcurrent 1),
// its first tick done.
func startedWithOnePlace(t *testing.T) (*env, *driven) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.MaxConcurrent = 1
	d := newDriven(e, cfg)
	d.want(Input{Kind: InStarted}, "arm poll 1s")
	return e, d
}

// Notifications wake the runner only for a queue it handles while a slot
// is free; a stepdown always does.
func TestPolicyNotificationFilter(t *testing.T) {
	e, d := startedWithOnePlace(t)
	other := store.Notification{Channel: store.ChannelAvailable, Queue: "other"}
	mine := store.Notification{Channel: store.ChannelAvailable, Queue: "q"}
	d.want(Input{Kind: InNotification, Note: other}, "")
	e.enqueue("q", 1)
	d.want(Input{Kind: InNotification, Note: mine}, "start 1, arm poll 1s")
	e.enqueue("q", 1)
	d.want(Input{Kind: InNotification, Note: mine}, "")
	if n := len(d.rec.of(EventNotificationIgnored)); n != 1 {
		t.Fatalf("ignored-for-full events %d, want 1", n)
	}
	d.want(Input{Kind: InNotification, Note: store.Notification{Channel: store.ChannelStepdown}}, "arm poll 1s")
}

// A finished job starts a linger while others run; the tick comes when the
// last one finishes or the linger ends. While backing off after a failed
// tick, results wait for the backoff's tick.
func TestPolicyLingerAndBackoff(t *testing.T) {
	e := newEnv(t)
	d := newDriven(e, testConfig())
	e.enqueue("q", 3)
	start := d.want(Input{Kind: InStarted}, "start 3, arm poll 1s")
	jobs := start[0].Jobs
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: jobs[0].ID}}, "arm linger 1ms")
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: jobs[1].ID}}, "")
	d.want(Input{Kind: InTimer, Timer: TimerLinger}, "arm poll 1s")
	if got := e.jobs(store.Completed); len(got) != 2 {
		t.Fatalf("completed after the linger: %d, want 2", len(got))
	}
	e.st.failBefore = once(has("Reserve"))
	e.enqueue("q", 1) // something for the failing tick to reserve
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s")
	if !d.p.backingOff {
		t.Fatal("not backing off after a failed tick")
	}
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: jobs[2].ID}}, "")
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "start 1, arm poll 1s")
	if r := e.job(jobs[2].ID); r.Status != store.Completed {
		t.Fatalf("result finished while backing off: %+v, want recorded by the next tick", r)
	}
}

// Duties run after the tick's jobs are handed out, as a step of their own.
func TestPolicyDutiesAfterStarts(t *testing.T) {
	e := newEnv(t)
	d := newDriven(e, testConfig())
	e.enqueue("q", 1)
	acts := d.p.Step(Input{Kind: InStarted})
	next := d.p.Step(d.p.Do(e.ctx, acts[0], e.storeNow()))
	if got := describe(next); got != fmt.Sprintf("start 1, call %d", CallDuties) {
		t.Fatalf("after the first tick: %q, want the start, then the duties call", got)
	}
	if n := len(d.rec.of(EventDutiesStarted)); n != 0 {
		t.Fatalf("duties ran inside the tick (%d events)", n)
	}
}

// The runner reports its wake-ups as the history needs them: each tick
// while serving begins with EventTickStarted (why it woke), each wait for
// the next with EventWaiting (its failed ticks), and a notification of
// available jobs with EventNotified, whether it wakes the runner or not.
// Each job pass, empty or not, reports what it asked for and reserved
// with EventJobPass, after the starts of the jobs it handed out.
func TestPolicyReportsTicksAndWaits(t *testing.T) {
	e, d := startedWithOnePlace(t)
	e.enqueue("q", 1)
	mine := store.Notification{Channel: store.ChannelAvailable, Queue: "q"}
	d.want(Input{Kind: InNotification, Note: mine}, "start 1, arm poll 1s")
	d.want(Input{Kind: InNotification, Note: mine}, "")           // full
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s") // full: an empty pass
	var got []string
	for _, ev := range d.rec.events {
		switch ev.Kind {
		case EventTickStarted:
			got = append(got, "tick "+ev.Reason)
		case EventWaiting:
			got = append(got, fmt.Sprintf("wait %d", ev.Count))
		case EventNotified:
			got = append(got, "notified "+ev.Reason)
		case EventJobStarted:
			got = append(got, "started")
		case EventJobPass:
			got = append(got, fmt.Sprintf("pass %v %d got %d", ev.Queues, ev.Limit, ev.Count))
		}
	}
	want := "tick , pass [q] 1 got 0, wait 0, notified q, tick notification, started, pass [q] 1 got 1, wait 0, notified q, tick sleep, pass [] 0 got 0, wait 0"
	if strings.Join(got, ", ") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, ", "), want)
	}
}

// The bounds of a shutdown add up: the cancel comes within the drain and
// one call, the release within the grace, a call and the release's
// tries more, the exit within the shutdown's tries more.
func TestShutdownBoundsAddUp(t *testing.T) {
	cfg := testConfig()
	cfg.PollJitter = 0.1
	call, tries := ShutdownCallTimeout(cfg), shutdownTries(cfg)
	if got, want := CancelBound(cfg), cfg.DrainTimeout+call; got != want {
		t.Errorf("CancelBound %v, want %v", got, want)
	}
	if got, want := ReleaseBound(cfg), CancelBound(cfg)+graceOf(cfg)+call+tries; got != want {
		t.Errorf("ReleaseBound %v, want %v", got, want)
	}
	if got, want := ShutdownBound(cfg), ReleaseBound(cfg)+tries; got != want {
		t.Errorf("ShutdownBound %v, want %v", got, want)
	}
	if got, want := PollBound(cfg), cfg.PollInterval+time.Duration(float64(cfg.PollInterval)*cfg.PollJitter); got != want {
		t.Errorf("PollBound %v, want %v", got, want)
	}
}

// A runner backing off after failed ticks waits at most the poll interval
// doubled per failure, capped at maxErrorBackoff, with its largest jitter.
func TestBackoffBoundDoublesToTheCap(t *testing.T) {
	cfg := testConfig()
	cfg.PollInterval, cfg.PollJitter = time.Second, 0.1
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{{1, 1100 * time.Millisecond}, {2, 2200 * time.Millisecond}, {3, 4400 * time.Millisecond}, {20, maxErrorBackoff * 11 / 10}} {
		if got := BackoffBound(cfg, c.failures); got != c.want {
			t.Errorf("BackoffBound after %d failures: %v, want %v", c.failures, got, c.want)
		}
	}
}
