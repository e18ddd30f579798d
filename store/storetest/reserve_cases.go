package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

var reserveCases = []testCase{
	{"OldestFirstWithinLimit", func(h *harness) {
		w := h.worker()
		var want []ulid.ULID
		for range 5 {
			want = append(want, h.insert("q", time.Time{}))
			h.clock.Advance(time.Millisecond)
		}
		got := h.reserve(w, 3, "q")
		if !slices.Equal(ids(got), want[:3]) {
			h.t.Fatalf("reserved %v, want %v", ids(got), want[:3])
		}
		for _, j := range got {
			if j.Status != store.Running || j.StartedBy != w || !j.StartedAt.Equal(h.now()) {
				h.t.Errorf("returned row: %s", store.FormatJob(j))
			}
			h.wantJob(j.ID, j)
		}
		if rest := h.reserve(w, 10, "q"); !slices.Equal(ids(rest), want[3:]) {
			h.t.Fatalf("second reserve %v, want %v", ids(rest), want[3:])
		}
		if none := h.reserve(w, 10, "q"); len(none) != 0 {
			h.t.Fatalf("third reserve %v, want none", ids(none))
		}
	}},
	{"QueueFilterMergesByID", func(h *harness) {
		w := h.worker()
		a1 := h.insert("a", time.Time{})
		c := h.insert("c", time.Time{})
		b1 := h.insert("b", time.Time{})
		a2 := h.insert("a", time.Time{})
		got := h.reserve(w, 10, "b", "a", "b")
		if want := []ulid.ULID{a1, b1, a2}; !slices.Equal(ids(got), want) {
			h.t.Fatalf("reserved %v, want %v (not %s of queue c)", ids(got), want, c)
		}
	}},
	{"SkipsScheduledAndTakenRows", func(h *harness) {
		w, other := h.worker(), h.worker()
		taken := h.running(other, "q")
		sched := h.insert("q", h.clock.Now().Add(time.Second))
		free := h.insert("q", time.Time{})
		if got := h.reserve(w, 10, "q"); !slices.Equal(ids(got), []ulid.ULID{free}) {
			h.t.Fatalf("reserved %v, want only %s (not running %s or scheduled %s)", ids(got), free, taken, sched)
		}
	}},
	{"NothingToAskFor", func(h *harness) {
		w := h.worker()
		h.insert("q", time.Time{})
		for _, c := range []struct {
			limit  int
			queues []string
		}{{0, []string{"q"}}, {-1, []string{"q"}}, {5, nil}, {5, []string{}}} {
			if got := h.reserve(w, c.limit, c.queues...); len(got) != 0 {
				h.t.Fatalf("reserve(limit %d, queues %q) = %v, want none", c.limit, c.queues, ids(got))
			}
		}
		if s := h.state(); s.Jobs[0].Status != store.Available {
			h.t.Fatalf("row changed: %s", store.FormatJob(s.Jobs[0]))
		}
	}},
	{"DeadOrUnknownWorkerReservesNothing", func(h *harness) {
		h.insert("q", time.Time{})
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		before := h.state()
		for _, who := range []ulid.ULID{w, h.newID()} {
			for _, limit := range []int{0, 1} {
				err := h.tx(func(tx store.Tx) error { _, err := tx.Reserve(h.ctx, who, []string{"q"}, limit); return err })
				h.wantErr(err, store.ErrNotFound, "reserve by a dead or unknown worker")
			}
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("failed reserve changed the store:\n%s", after)
		}
	}},
	{"RunningJobsOfOneWorker", func(h *harness) {
		w, other := h.worker(), h.worker()
		a := h.running(w, "q")
		h.running(other, "q")
		b := h.running(w, "r")
		c := h.running(w, "q")
		h.complete(w, c)
		var got []store.Job
		h.do(func(tx store.Tx) (err error) { got, err = tx.RunningJobs(h.ctx, w); return err })
		if want := []ulid.ULID{a, b}; !slices.Equal(ids(got), want) {
			h.t.Fatalf("RunningJobs = %v, want %v", ids(got), want)
		}
		h.do(func(tx store.Tx) (err error) { got, err = tx.RunningJobs(h.ctx, h.newID()); return err })
		if len(got) != 0 {
			h.t.Fatalf("RunningJobs of an unknown worker = %v", ids(got))
		}
	}},
	{"ReusedIDOnAnotherQueueIsNotReservedFromTheOld", func(h *harness) {
		// A row cancelled while available, deleted by retention, then
		// inserted again with the same id on another queue belongs to the
		// new queue only.
		w := h.worker()
		id := h.insert("old", time.Time{})
		h.do(func(tx store.Tx) error { _, err := tx.CancelJob(h.ctx, id); return err })
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 1 {
			h.t.Fatalf("retention deleted %d rows, want 1", n)
		}
		h.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "new", Payload: payload(1)}})
			return err
		})
		if got := h.reserve(w, 5, "old"); len(got) != 0 {
			h.t.Fatalf("reserve on queue old returned %v, a row of queue new", ids(got))
		}
		if got := h.reserve(w, 5, "new"); !slices.Equal(ids(got), []ulid.ULID{id}) {
			h.t.Fatalf("reserve on queue new = %v, want [%s]", ids(got), id)
		}
	}},
	{"RowScheduledAfterNowWaits", func(h *harness) {
		// Under database time a reserving transaction's now can precede a
		// visible row's scheduled_at; such a row must not start early.
		w := h.worker()
		id := h.insert("q", time.Time{})
		start := h.clock.Now()
		h.clock.Set(start.Add(-time.Second))
		if got := h.reserve(w, 5, "q"); len(got) != 0 {
			h.t.Fatalf("reserved %v before its scheduled_at", ids(got))
		}
		h.clock.Set(start)
		if got := h.reserve(w, 5, "q"); !slices.Equal(ids(got), []ulid.ULID{id}) {
			h.t.Fatalf("reserve at its scheduled_at = %v, want [%s]", ids(got), id)
		}
	}},
}
