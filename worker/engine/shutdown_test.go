package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// Graceful shutdown: stop reserving, record what finished, release what
// did not return, mark the worker shut down and give up the lease.
func TestShutdownDrainsAndReleases(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	listen, err := e.mem.Listen(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.enqueue("q", 3)
	jobs := e.tick(a)
	e.enqueue("q", 2)
	a.beginShutdown()
	a.finished(Result{JobID: jobs[0].ID, Decision: Succeed})
	if got := e.tick(a); len(got) != 0 {
		t.Fatalf("a tick while shutting down started %v", ids(got))
	}
	if s := e.job(jobs[0].ID).Status; s != store.Completed {
		t.Fatalf("result during drain not recorded: %s", s)
	}
	// jobs[1] overran the drain deadline; jobs[2] finishes just in time.
	if err := a.release(e.ctx, ids(jobs[1:2])); err != nil {
		t.Fatal(err)
	}
	a.finished(Result{JobID: jobs[1].ID, Decision: Succeed}) // too late: ignored
	a.finished(Result{JobID: jobs[2].ID, Decision: Fail, Reason: "no"})
	if err := a.shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	released := e.job(jobs[1].ID)
	if released.Status != store.Failed || released.FailedReason != ReasonShutdown || released.NextAttemptID.IsZero() {
		t.Fatalf("released job: %+v, want failed %q with a retry", released, ReasonShutdown)
	}
	if s := e.job(jobs[2].ID).Status; s != store.Failed {
		t.Fatalf("job finished before Shutdown is %s, want failed", s)
	}
	if n := len(e.jobs(store.Running)); n != 0 {
		t.Fatalf("%d rows still running after shutdown", n)
	}
	if ws := e.workers(); ws[0].ShutdownAt.IsZero() {
		t.Fatal("worker row not shut down")
	}
	if rec.count(EventLeaseReleased) != 1 {
		t.Fatal("lease not released")
	}
	var stepdown bool
	for len(listen) > 0 {
		stepdown = stepdown || (<-listen).Channel == store.ChannelStepdown
	}
	if !stepdown {
		t.Fatal("no stepdown notification")
	}
	if _, err := a.tick(e.ctx, e.storeNow()); !errors.Is(err, errShutDown) {
		t.Fatalf("Tick after Shutdown: %v, want errShutDown", err)
	}
}

// Shutdown releases jobs still counted as running and reservations whose
// commit it never saw: nothing of the worker stays running.
func TestShutdownLeavesNothingRunning(t *testing.T) {
	e := newEnv(t)
	a, _ := e.core(testConfig(), 1)
	e.enqueue("q", 4)
	e.tick(a) // two jobs are handed out; one more tick reserves with an unseen commit
	e.st.failAfter = once(has("Reserve"))
	e.enqueue("q", 3)
	if _, err := a.tick(e.ctx, e.storeNow()); err == nil {
		t.Fatal("injected failure not reported")
	}
	e.advance(time.Second)
	a.beginShutdown()
	if err := a.shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	if running := e.jobs(store.Running); len(running) != 0 {
		t.Fatalf("rows still running after shutdown: %v", ids(running))
	}
	if n := len(e.jobs(store.Failed)); n != 7 {
		t.Fatalf("%d rows failed with %q, want all 7 reserved", n, ReasonShutdown)
	}
}

// The cap counts every job executing locally and is never exceeded, whatever
// order jobs finish in.
func TestConcurrencyCapHolds(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.MaxConcurrent, cfg.MaxFetch = 4, 3
	a, _ := e.core(cfg, 1)
	e.enqueue("q", 60)
	r := e.rnd.Child("finish")
	for range 200 {
		e.tick(a)
		if n := len(a.runningIDs()); n > cfg.MaxConcurrent {
			t.Fatalf("%d jobs executing, cap %d", n, cfg.MaxConcurrent)
		}
		if n := len(e.jobs(store.Running)); n > cfg.MaxConcurrent {
			t.Fatalf("%d rows running, cap %d", n, cfg.MaxConcurrent)
		}
		for _, id := range a.runningIDs() {
			if r.Chance(0.3) {
				a.finished(Result{JobID: id, Decision: Succeed})
			}
		}
		e.advance(100 * time.Millisecond)
	}
	if n := len(e.jobs(store.Completed)); n != 60 {
		t.Fatalf("%d of 60 jobs completed", n)
	}
}

// A worker declared dead while it drains still records its results and
// shuts down without registering again.
func TestDeclaredDeadWhileDraining(t *testing.T) {
	e := newEnv(t)
	a, rec := e.core(testConfig(), 1)
	e.enqueue("q", 2)
	jobs := e.tick(a)
	a.beginShutdown()
	e.inTx(func(tx store.Tx) error { return tx.ShutdownWorker(e.ctx, a.ID()) })
	e.advance(2 * time.Minute) // the heartbeat is due, and finds the row shut down
	finishAll(a, Succeed, "")
	e.tick(a)
	if rec.count(EventDeclaredDead) != 1 || rec.count(EventRegistered) != 1 {
		t.Fatalf("want one declared-dead event and no new registration: %v", rec.events)
	}
	for _, j := range jobs {
		if s := e.job(j.ID).Status; s != store.Completed {
			t.Errorf("job %s is %s, want completed (not rescued yet, so not fenced)", j.ID, s)
		}
	}
	if err := a.shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
}
