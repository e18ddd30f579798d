package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// cancelRow cancels a job in the store, as an operator does.
func (e *env) cancelRow(id ulid.ULID) {
	e.t.Helper()
	e.inTx(func(tx store.Tx) error { _, err := tx.CancelJob(e.ctx, id); return err })
}

func cancelNote(id ulid.ULID) Input {
	return Input{Kind: InNotification, Note: store.Notification{Channel: store.ChannelCancel, Job: id}}
}

// The cancel notification of an executing job cancels that handler's
// context, and only until the driver reports it did: a job that is not
// executing, or already stopped, asks for nothing.
func TestPolicyCancelNotificationStopsItsHandler(t *testing.T) {
	e := newEnv(t)
	d := newDriven(e, testConfig())
	ids := e.enqueue("q", 2)
	d.want(Input{Kind: InStarted}, "start 2, arm poll 1s")
	e.cancelRow(ids[0])
	acts := d.want(cancelNote(ids[0]), "cancel 1 by notification")
	if !slices.Equal(acts[0].JobIDs, ids[:1]) {
		t.Fatalf("cancels %v, want %v", acts[0].JobIDs, ids[:1])
	}
	d.want(cancelNote(clockrng.NewULID(e.storeNow(), e.rnd)), "") // a job no one here runs
	d.want(cancelNote(ids[0]), "cancel 1 by notification")        // not carried out yet: asked again
	d.p.ReportJobsCancelled(acts[0])
	d.want(cancelNote(ids[0]), "")
	got := d.rec.of(EventJobCancelled)
	if len(got) != 1 || got[0].Job.ID != ids[0] || got[0].Reason != CancelByNotification || got[0].Worker != d.p.Core().ID() {
		t.Fatalf("job-cancelled events %+v, want one for %s by notification", got, ids[0])
	}
	// The next check asks only about the job whose context still runs.
	e.advance(time.Second)
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s")
	if checks := d.rec.of(EventCancelChecked); len(checks) != 1 || !slices.Equal(checks[0].Jobs, ids[1:]) {
		t.Fatalf("cancel checks %+v, want one asking about %v", checks, ids[1:])
	}
}

// A lost notification is made up for by the job pass: the next tick finds
// the row cancelled and the policy cancels the handler's context.
func TestPolicyJobPassFindsALostCancel(t *testing.T) {
	e := newEnv(t)
	d := newDriven(e, testConfig())
	ids := e.enqueue("q", 2)
	d.want(Input{Kind: InStarted}, "start 2, arm poll 1s")
	e.cancelRow(ids[1])
	e.advance(time.Second)
	acts := d.want(Input{Kind: InTimer, Timer: TimerPoll}, "cancel 1 by job pass, arm poll 1s")
	if !slices.Equal(acts[0].JobIDs, ids[1:]) {
		t.Fatalf("cancels %v, want %v", acts[0].JobIDs, ids[1:])
	}
	checks := d.rec.of(EventCancelChecked)
	if len(checks) != 1 || !slices.Equal(checks[0].Jobs, ids) || checks[0].Count != 1 || !checks[0].StoreTime.Equal(e.storeNow()) {
		t.Fatalf("cancel checks %+v, want one asking about %v that found 1 at %s", checks, ids, e.storeNow())
	}
	d.p.ReportJobsCancelled(acts[0])
	// Its result, whatever the handler returns, is fenced off.
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: ids[1], Decision: Succeed}}, "arm linger 1ms")
	d.want(Input{Kind: InTimer, Timer: TimerLinger}, "arm poll 1s")
	if r := e.job(ids[1]); r.Status != store.Cancelled || d.rec.count(EventResultFenced) != 1 {
		t.Fatalf("the cancelled job after its handler succeeded: %s, %d fenced results", store.FormatJob(r), d.rec.count(EventResultFenced))
	}
}

// A worker that ticks often pays for the cancel check at most ten times
// per poll interval (local clock), and one whose every slot is busy still
// checks, in a pass that does nothing else.
func TestCoreCancelCheckAtMostTenPerPoll(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.MaxConcurrent, cfg.MaxFetch = 1, 1
	d := newDriven(e, cfg)
	e.enqueue("q", 2)
	d.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	for range 20 {
		e.advance(cfg.PollInterval / 20)
		d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s")
	}
	if n := d.rec.count(EventCancelChecked); n != 10 {
		t.Fatalf("%d cancel checks in 20 ticks over one poll interval, want 10", n)
	}
	if n := len(e.jobs(store.Available)); n != 1 {
		t.Fatalf("%d jobs available, want 1: a full worker reserves nothing", n)
	}
}

// Once the drain deadline cancelled every context, no check asks again.
func TestCoreNoCancelCheckAfterEveryContextIsCancelled(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.DrainTimeout = 5 * time.Second
	d := newDriven(e, cfg)
	ids := e.enqueue("q", 1)
	d.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	d.want(Input{Kind: InStop}, "arm drain 5s")
	d.want(Input{Kind: InTimer, Timer: TimerDrain}, "cancel, arm grace 500ms")
	d.p.ReportCancelled()
	before := d.rec.count(EventCancelChecked)
	e.cancelRow(ids[0])
	e.advance(time.Second)
	d.want(cancelNote(ids[0]), "")
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s")
	if n := d.rec.count(EventCancelChecked); n != before {
		t.Fatalf("%d cancel checks after every context was cancelled, want none", n-before)
	}
}
