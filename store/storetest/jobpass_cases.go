package storetest

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// pass runs store.RunJobPass, which uses the store's own implementation
// when it has one (store/pg) and InTx otherwise (store/mem).
func (h *harness) pass(p store.JobPass) store.JobPassResult {
	h.t.Helper()
	res, err := store.RunJobPass(h.ctx, h.st, p)
	if err != nil {
		h.t.Fatalf("RunJobPass: %v", err)
	}
	return res
}

// FormatPass formats a job pass's result for comparison.
func FormatPass(res store.JobPassResult) string {
	return fmt.Sprintf("now %s dead %v fenced %v cancelled %v reserved %s", ts(res.Now), res.Dead, res.Fenced, res.Cancelled, fmtJobs(res.Reserved))
}

var jobPassCases = []testCase{
	{"CompletesHeartbeatsAndReserves", func(h *harness) {
		w := h.worker()
		done := []ulid.ULID{h.running(w, "q"), h.running(w, "q")}
		var avail []ulid.ULID
		for range 3 {
			avail = append(avail, h.insert("q", time.Time{}))
		}
		before := h.state()
		h.clock.Advance(time.Second)
		res := h.pass(store.JobPass{Worker: w, Heartbeat: true,
			Complete: []store.Completion{{Worker: w, IDs: done}}, Queues: []string{"q"}, Limit: 2})
		if !res.Now.Equal(h.now()) || res.Dead || len(res.Fenced) != 0 || !slices.Equal(ids(res.Reserved), avail[:2]) {
			h.t.Fatalf("pass: %s; want now %s, reserved %v", FormatPass(res), ts(h.now()), avail[:2])
		}
		for _, j := range res.Reserved {
			if j.Status != store.Running || j.StartedBy != w || !j.StartedAt.Equal(h.now()) {
				h.t.Errorf("reserved row: %s", store.FormatJob(j))
			}
			h.wantJob(j.ID, j)
		}
		for _, id := range done {
			if j := h.job(id); j.Status != store.Completed || !j.CompletedAt.Equal(h.now()) {
				h.t.Errorf("completed row: %s", store.FormatJob(j))
			}
		}
		if j := h.job(avail[2]); j.Status != store.Available {
			h.t.Errorf("row beyond the limit: %s", store.FormatJob(j))
		}
		if got := h.state().Workers[0]; !got.LastSeenAt.Equal(h.now()) || got.RegisteredAt != before.Workers[0].RegisteredAt {
			h.t.Errorf("worker after the heartbeat: %+v", got)
		}
	}},
	{"FencesPerRowInOrderGiven", func(h *harness) {
		old, w := h.worker(), h.worker()
		lostJob := h.running(old, "q")
		h.declareDead(old)
		mine := h.running(w, "q")
		h.clock.Advance(time.Second)
		res := h.pass(store.JobPass{Worker: w, Complete: []store.Completion{
			{Worker: old, IDs: []ulid.ULID{lostJob}}, {Worker: w, IDs: []ulid.ULID{mine, lostJob}}}})
		if !slices.Equal(res.Fenced, []ulid.ULID{lostJob, lostJob}) || res.Dead || len(res.Reserved) != 0 {
			h.t.Fatalf("pass: %s; want both completions of %s fenced", FormatPass(res), lostJob)
		}
		if h.job(mine).Status != store.Completed || h.job(lostJob).Status != store.Lost {
			h.t.Fatalf("rows: %s / %s", store.FormatJob(h.job(mine)), store.FormatJob(h.job(lostJob)))
		}
	}},
	{"DeadWorkerChangesOnlyRows", func(h *harness) {
		w, other := h.worker(), h.worker()
		mine := h.running(w, "q")
		stillRunning := h.running(other, "q")
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		h.insert("q", time.Time{})
		h.clock.Advance(time.Second)
		before := h.state()
		// Shut down but not yet rescued: the completion is fenced by the row
		// alone, so it applies; the heartbeat and the reservation do not.
		res := h.pass(store.JobPass{Worker: w, Heartbeat: true,
			Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{mine, stillRunning}}}, Queues: []string{"q"}, Limit: 5})
		if !res.Dead || !slices.Equal(res.Fenced, []ulid.ULID{stillRunning}) || len(res.Reserved) != 0 || !res.Now.Equal(h.now()) {
			h.t.Fatalf("pass: %s; want dead, %s fenced, nothing reserved", FormatPass(res), stillRunning)
		}
		after := h.state()
		if after.Workers[0] != before.Workers[0] {
			h.t.Errorf("dead worker's row changed: %+v -> %+v", before.Workers[0], after.Workers[0])
		}
		if h.job(mine).Status != store.Completed || len(h.state().JobsIn(store.Available)) != 1 {
			h.t.Errorf("after the pass:\n%s", after)
		}
	}},
	{"DeadOnlyWhenHeartbeatOrReserveAsked", func(h *harness) {
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		h.insert("q", time.Time{})
		for _, c := range []struct {
			p    store.JobPass
			dead bool
		}{
			{store.JobPass{Worker: w, Queues: []string{"q"}, Limit: 0}, false},
			{store.JobPass{Worker: w, Limit: 3}, false},
			{store.JobPass{Worker: w, Queues: []string{"q"}, Limit: 3}, true},
			{store.JobPass{Worker: w, Heartbeat: true}, true},
			{store.JobPass{Worker: h.newID(), Heartbeat: true}, true},
		} {
			if res := h.pass(c.p); res.Dead != c.dead || len(res.Reserved) != 0 {
				h.t.Errorf("pass %+v: %s, want dead %v", c.p, FormatPass(res), c.dead)
			}
		}
	}},
	{"ZeroWorkerOnlyCompletes", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		h.insert("q", time.Time{})
		p := store.JobPass{Heartbeat: true, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{id}}}, Queues: []string{"q"}, Limit: 1}
		if p.Reserves() || p.Empty() {
			h.t.Fatalf("Reserves %v Empty %v for a zero worker with a completion", p.Reserves(), p.Empty())
		}
		if res := h.pass(p); res.Dead || len(res.Fenced) != 0 || len(res.Reserved) != 0 {
			h.t.Fatalf("pass: %s", FormatPass(res))
		}
		if h.job(id).Status != store.Completed || len(h.state().JobsIn(store.Available)) != 1 {
			h.t.Fatalf("after the pass:\n%s", h.state())
		}
		if !(store.JobPass{Heartbeat: true, Limit: 1, Queues: []string{"q"}}).Empty() {
			h.t.Fatal("a pass with only a zero worker's heartbeat and reservation is not Empty")
		}
	}},
	{"WithoutHeartbeatKeepsLastSeen", func(h *harness) {
		w := h.worker()
		before := h.state().Workers[0]
		h.clock.Advance(time.Minute)
		if res := h.pass(store.JobPass{Worker: w, Queues: []string{"q"}, Limit: 1}); res.Dead || len(res.Reserved) != 0 {
			h.t.Fatalf("pass on an empty queue: %s", FormatPass(res))
		}
		if got := h.state().Workers[0]; got != before {
			h.t.Fatalf("worker row changed without a heartbeat: %+v -> %+v", before, got)
		}
	}},
	{"AsksWhichExecutingJobsWereCancelled", func(h *harness) {
		w := h.worker()
		cancelled, running, completing := h.running(w, "q"), h.running(w, "q"), h.running(w, "q")
		if _, err := h.cancel(cancelled); err != nil {
			h.t.Fatal(err)
		}
		avail := h.insert("q", time.Time{})
		p := store.JobPass{Worker: w, Executing: []ulid.ULID{running, cancelled, completing},
			Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{completing}}}, Queues: []string{"q"}, Limit: 1}
		res := h.pass(p)
		if !slices.Equal(res.Cancelled, []ulid.ULID{cancelled}) || len(res.Fenced) != 0 || !slices.Equal(ids(res.Reserved), []ulid.ULID{avail}) {
			h.t.Fatalf("pass: %s; want %s cancelled, %s reserved", FormatPass(res), cancelled, avail)
		}
		// Asking alone is a pass of its own: a worker whose every slot is
		// busy still learns of cancels. It changes nothing, and needs no
		// live worker.
		ask := store.JobPass{Executing: []ulid.ULID{running, cancelled}}
		if ask.Empty() {
			h.t.Fatal("a pass that only asks about executing jobs is Empty")
		}
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		before := h.state()
		if res := h.pass(ask); !slices.Equal(res.Cancelled, []ulid.ULID{cancelled}) || res.Dead {
			h.t.Fatalf("asking pass: %s; want %s cancelled, not dead", FormatPass(res), cancelled)
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("an asking pass changed the store:\n%s", after)
		}
	}},
}
