package storetest

import (
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// queueOp runs one of the queue controls in a transaction of its own.
func (h *harness) queueOp(fn func(tx store.Tx) error) { h.t.Helper(); h.do(fn) }

func (h *harness) pause(q string) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.PauseQueue(h.ctx, q) })
}

func (h *harness) resume(q string) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.ResumeQueue(h.ctx, q) })
}

func (h *harness) setLimit(q string, n int) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.SetQueueLimit(h.ctx, q, n) })
}

func (h *harness) queues() []store.QueueStats {
	h.t.Helper()
	var out []store.QueueStats
	h.do(func(tx store.Tx) (err error) { out, err = tx.ListQueues(h.ctx); return err })
	return out
}

// threeRunningOverALimitOfTwo starts three jobs of queue q under a new
// worker, inserts three more and then limits q to 2.
func (h *harness) threeRunningOverALimitOfTwo() (w, a, b, c ulid.ULID) {
	w = h.worker()
	a, b, c = h.running(w, "q"), h.running(w, "q"), h.running(w, "q")
	for range 3 {
		h.insert("q", time.Time{})
	}
	h.setLimit("q", 2)
	return w, a, b, c
}

var queueCases = []testCase{
	{"PausedQueueReservesNothingUntilResumed", func(h *harness) {
		w := h.worker()
		run := h.running(w, "q")
		h.pause("q")
		other := h.insert("r", time.Time{})
		waiting := h.insert("q", time.Time{}) // enqueueing goes on
		if got := h.reserve(w, 10, "q", "r"); !slices.Equal(ids(got), []ulid.ULID{other}) {
			h.t.Fatalf("reserved %v while q is paused, want only %s of r", ids(got), other)
		}
		h.complete(w, run) // running jobs finish
		if h.job(run).Status != store.Completed {
			h.t.Fatalf("running job of a paused queue did not complete: %s", store.FormatJob(h.job(run)))
		}
		h.resume("q")
		if got := h.reserve(w, 10, "q"); !slices.Equal(ids(got), []ulid.ULID{waiting}) {
			h.t.Fatalf("reserved %v after resume, want %s", ids(got), waiting)
		}
	}},
	{"PauseKeepsItsFirstTimeAndResumeDropsTheRow", func(h *harness) {
		h.pause("q")
		first := h.now()
		h.clock.Advance(time.Minute)
		h.pause("q")
		if s := h.state(); len(s.Queues) != 1 || !s.Queues[0].PausedAt.Equal(first) || s.Queues[0].Limit != 0 {
			h.t.Fatalf("queues rows %+v, want q paused at %s", s.Queues, first)
		}
		h.resume("q")
		h.resume("never-paused")
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("queues rows %+v after resume, want none", s.Queues)
		}
	}},
	{"LimitHoldsAcrossWorkers", func(h *harness) {
		a, b := h.worker(), h.worker()
		for range 5 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 2)
		if got := h.reserve(a, 10, "q"); len(got) != 2 {
			h.t.Fatalf("worker a reserved %d under a limit of 2", len(got))
		}
		if got := h.reserve(b, 10, "q"); len(got) != 0 {
			h.t.Fatalf("worker b reserved %v with 2 of a limit of 2 running", ids(got))
		}
		running := h.state().JobsIn(store.Running)
		h.complete(a, running[0].ID)
		if got := h.reserve(b, 10, "q"); len(got) != 1 {
			h.t.Fatalf("worker b reserved %d after one of 2 finished, want 1", len(got))
		}
		h.setLimit("q", 0)
		if got := h.reserve(b, 10, "q"); len(got) != 2 {
			h.t.Fatalf("reserved %d after the limit was removed, want the 2 left", len(got))
		}
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("queues rows %+v after the limit was removed, want none", s.Queues)
		}
	}},
	{"LimitBelowRunningOnlyStopsReserving", func(h *harness) {
		w := h.worker()
		h.running(w, "q")
		h.running(w, "q")
		h.insert("q", time.Time{})
		h.setLimit("q", 1)
		if got := h.reserve(w, 10, "q"); len(got) != 0 {
			h.t.Fatalf("reserved %v with 2 running over a limit of 1", ids(got))
		}
		if n := len(h.state().JobsIn(store.Running)); n != 2 {
			h.t.Fatalf("%d running, want the 2 that ran before", n)
		}
	}},
	{"LimitBelowRunningWaitsForTheSurplus", func(h *harness) {
		w, a, b, c := h.threeRunningOverALimitOfTwo()
		h.complete(w, a)
		if got := h.reserve(w, 10, "q"); len(got) != 0 {
			h.t.Fatalf("reserved %v with 2 running under a limit of 2", ids(got))
		}
		h.complete(w, b)
		if got := h.reserve(w, 10, "q"); len(got) != 1 {
			h.t.Fatalf("reserved %d with c alone running under a limit of 2, want 1", len(got))
		}
		h.complete(w, c)
		if got := h.reserve(w, 10, "q"); len(got) != 1 {
			h.t.Fatalf("reserved %d with 1 running under a limit of 2, want the last 1", len(got))
		}
	}},
	{"LimitCountsEveryWorkersJobs", func(h *harness) {
		// Two workers share a limit of 130; a lowered limit waits for the
		// surplus, then admits as many as end.
		a, b := h.worker(), h.worker()
		for range 150 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 130)
		if got := h.reserve(a, 100, "q"); len(got) != 100 {
			h.t.Fatalf("worker a reserved %d of 100 under a limit of 130", len(got))
		}
		if got := h.reserve(b, 100, "q"); len(got) != 30 {
			h.t.Fatalf("worker b reserved %d with 100 of a limit of 130 running, want 30", len(got))
		}
		if got := h.reserve(b, 100, "q"); len(got) != 0 {
			h.t.Fatalf("worker b reserved %v with 130 of a limit of 130 running", ids(got))
		}
		h.setLimit("q", 70)
		running := h.state().JobsIn(store.Running)
		slices.SortFunc(running, func(x, y store.Job) int { return x.ID.Compare(y.ID) })
		for _, j := range running[70:] { // the surplus
			h.complete(j.StartedBy, j.ID)
		}
		if got := h.reserve(b, 100, "q"); len(got) != 0 {
			h.t.Fatalf("reserved %v with 70 running under a limit of 70", ids(got))
		}
		for _, j := range running[:3] {
			h.complete(j.StartedBy, j.ID)
		}
		if got := h.reserve(b, 100, "q"); len(got) != 3 {
			h.t.Fatalf("reserved %d after 3 of 70 under a limit of 70 ended, want 3", len(got))
		}
	}},
	{"AJobPassReplacesTheJobsItCompleted", func(h *harness) {
		a, b := h.worker(), h.worker()
		for range 6 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 3)
		first := h.reserve(a, 3, "q")
		res := h.pass(store.JobPass{Worker: a, Complete: []store.Completion{{Worker: a, IDs: ids(first[:2])}}, Queues: []string{"q"}, Limit: 2})
		if len(res.Reserved) != 2 {
			h.t.Fatalf("a pass completing 2 of 3 running under a limit of 3 reserved %d, want 2", len(res.Reserved))
		}
		if got := h.reserve(b, 5, "q"); len(got) != 0 {
			h.t.Fatalf("worker b reserved %v with 3 running under a limit of 3", ids(got))
		}
		res = h.pass(store.JobPass{Worker: a, Complete: []store.Completion{{Worker: a, IDs: ids(first[2:])}}, Queues: []string{"q"}, Limit: 3})
		if len(res.Reserved) != 1 {
			h.t.Fatalf("a pass completing 1 of 3 running and asking for 3 reserved %d, want 1", len(res.Reserved))
		}
	}},
	{"AJobPassUnderALoweredLimitReplacesNothing", func(h *harness) {
		// With more running than a new limit, a pass that completes one
		// job starts none in its place until fewer than the limit run.
		w, a, b, c := h.threeRunningOverALimitOfTwo()
		res := h.pass(store.JobPass{Worker: w, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{a}}}, Queues: []string{"q"}, Limit: 1})
		if len(res.Reserved) != 0 {
			h.t.Fatalf("a pass completing 1 of 3 running under a limit of 2 reserved %v", ids(res.Reserved))
		}
		res = h.pass(store.JobPass{Worker: w, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{b}}}, Queues: []string{"q"}, Limit: 1})
		if len(res.Reserved) != 1 {
			h.t.Fatalf("a pass completing 1 of 2 running under a limit of 2 reserved %d, want 1", len(res.Reserved))
		}
		res = h.pass(store.JobPass{Worker: w, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{c}}}, Queues: []string{"q"}, Limit: 2})
		if len(res.Reserved) != 1 {
			h.t.Fatalf("a pass completing 1 of 2 running and asking for 2 under a limit of 2 reserved %d, want the last 1", len(res.Reserved))
		}
	}},
	{"AJobPassGainsNoPlaceFromJobsEndedBeforeIt", func(h *harness) {
		// The places of a job cancelled, or completed in an earlier
		// transaction, went to another worker: completing it (fenced) in
		// a pass frees nothing more.
		a, b := h.worker(), h.worker()
		for range 5 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 2)
		x, y := h.reserve(a, 1, "q")[0].ID, h.reserve(a, 1, "q")[0].ID
		if _, err := h.cancel(x); err != nil {
			h.t.Fatal(err)
		}
		h.complete(a, y)
		if got := h.reserve(b, 5, "q"); len(got) != 2 {
			h.t.Fatalf("worker b reserved %d with none running under a limit of 2, want 2", len(got))
		}
		res := h.pass(store.JobPass{Worker: a, Complete: []store.Completion{{Worker: a, IDs: []ulid.ULID{x, y}}}, Queues: []string{"q"}, Limit: 2})
		if len(res.Reserved) != 0 || len(res.Fenced) != 2 {
			h.t.Fatalf("a pass completing jobs ended before it reserved %v (fenced %v) with 2 running under a limit of 2", ids(res.Reserved), res.Fenced)
		}
	}},
	{"RaisingALimitAddsRoomAndALimitSurvivesARollback", func(h *harness) {
		w := h.worker()
		for range 4 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 1)
		err := h.tx(func(tx store.Tx) error {
			if got, err := tx.Reserve(h.ctx, w, []string{"q"}, 5); err != nil || len(got) != 1 {
				h.t.Fatalf("reserve in the rolled-back transaction: %v, %d jobs", err, len(got))
			}
			return errRolledBack
		})
		h.wantErr(err, errRolledBack, "the rolled-back reservation")
		if got := h.reserve(w, 5, "q"); len(got) != 1 {
			h.t.Fatalf("reserved %d after a rolled-back reservation, want 1 (its slot is free again)", len(got))
		}
		h.setLimit("q", 3)
		if got := h.reserve(w, 5, "q"); len(got) != 2 {
			h.t.Fatalf("reserved %d with 1 running under a limit raised to 3, want 2", len(got))
		}
		if got := h.reserve(w, 5, "q"); len(got) != 0 {
			h.t.Fatalf("reserved %v with 3 running under a limit of 3", ids(got))
		}
	}},
	{"BadQueueControlsAreRefused", func(h *harness) {
		for _, n := range []int{-1, store.MaxQueueLimit + 1} {
			err := h.tx(func(tx store.Tx) error { return tx.SetQueueLimit(h.ctx, "q", n) })
			h.wantErr(err, store.ErrInvalid, "set a limit out of range")
		}
		for _, fn := range []func(tx store.Tx) error{
			func(tx store.Tx) error { return tx.PauseQueue(h.ctx, "") },
			func(tx store.Tx) error { return tx.ResumeQueue(h.ctx, "a\x00b") },
			func(tx store.Tx) error { return tx.SetQueueLimit(h.ctx, "", 3) },
		} {
			h.wantErr(h.tx(fn), store.ErrInvalid, "a control on a bad queue name")
		}
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("refused controls left rows %+v", s.Queues)
		}
	}},
	{"ListQueuesCountsByStatus", func(h *harness) {
		w := h.worker()
		h.running(w, "b")
		h.insert("b", time.Time{})
		h.insert("b", h.clock.Now().Add(time.Hour))
		h.pause("a") // a row, no job
		h.setLimit("b", 4)
		got := h.queues()
		if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
			h.t.Fatalf("listed %+v, want a then b", got)
		}
		if got[0].PausedAt.IsZero() || got[0].Limit != 0 || len(got[0].Counts) != 0 {
			h.t.Errorf("queue a: %+v, want paused, no limit, no jobs", got[0])
		}
		want := map[store.Status]int{store.Running: 1, store.Available: 1, store.Scheduled: 1}
		if !got[1].PausedAt.IsZero() || got[1].Limit != 4 || !maps.Equal(got[1].Counts, want) {
			h.t.Errorf("queue b: %+v, want not paused, limit 4, counts %v", got[1], want)
		}
	}},
}
