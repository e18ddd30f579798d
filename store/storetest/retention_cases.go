package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// wantChainDeleted runs retention twice over a chain of two attempts
// that both ended long ago: the first call deletes the first attempt only
// (the second is named by it when the call starts), the next the second.
func (h *harness) wantChainDeleted(first, second ulid.ULID) {
	h.t.Helper()
	if n := h.deleteOldJobs(time.Minute); n != 1 {
		h.t.Fatalf("deleted %d rows, want the first attempt only", n)
	}
	if left := ids(h.state().Jobs); !slices.Equal(left, []ulid.ULID{second}) {
		h.t.Fatalf("rows left %v, want the second attempt %s", left, second)
	}
	if n := h.deleteOldJobs(time.Minute); n != 1 {
		h.t.Fatalf("the next call deleted %d rows, want the second attempt", n)
	}
}

// deleteOldJobs runs DeleteOldJobs with a limit above every case's rows
// and returns its count.
func (h *harness) deleteOldJobs(age time.Duration) int {
	h.t.Helper()
	var n int
	h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldJobs(h.ctx, age, 1000); return err })
	return n
}

var retentionCases = []testCase{
	{"IDInsertedAgainTakesItsNewPlace", func(h *harness) {
		// A deleted row's id inserted again is a new row: it waits in the
		// place of its own scheduled_at, not its predecessor's. (The
		// in-memory store kept the deleted row's heap entry and reserved
		// the new row in the old place: found by the differential test.)
		w := h.worker()
		old := h.insert("q", time.Time{})
		if _, err := h.cancel(old); err != nil {
			h.t.Fatal(err)
		}
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 1 {
			h.t.Fatalf("deleted %d rows, want the cancelled one", n)
		}
		mid := h.insert("q", time.Time{})
		h.clock.Advance(time.Second)
		h.insertUnique(store.NewJob{ID: old, Queue: "q", Payload: payload(1)})
		if got := ids(h.reserve(w, 1, "q")); !slices.Equal(got, []ulid.ULID{mid}) {
			h.t.Fatalf("reserved %v, want %s, available a second before the id %s was inserted again", got, mid, old)
		}
	}},
	{"AtMostLimitEarliestEndFirst", func(h *harness) {
		w := h.worker()
		for range 4 {
			h.insert("q", time.Time{})
		}
		got := ids(h.reserve(w, 4, "q")) // in id order
		a, b, c, d := got[0], got[1], got[2], got[3]
		h.complete(w, c)
		h.clock.Advance(time.Second)
		h.complete(w, a, b, d) // one end time: ties go by id
		h.clock.Advance(time.Hour)
		var n int
		h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldJobs(h.ctx, time.Minute, 0); return err })
		if n != 0 || len(h.state().Jobs) != 4 {
			h.t.Fatalf("limit 0 deleted %d rows", n)
		}
		h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldJobs(h.ctx, time.Minute, 2); return err })
		if left := ids(h.state().Jobs); n != 2 || !slices.Equal(left, []ulid.ULID{b, d}) {
			h.t.Fatalf("limit 2 deleted %d rows and left %v, want the first to end (%s) and the lowest id of the rest (%s) gone", n, left, c, a)
		}
		if n := h.deleteOldJobs(time.Minute); n != 2 {
			h.t.Fatalf("the next call deleted %d rows, want the 2 left", n)
		}
	}},
	{"TerminalRowsOlderThanAge", func(h *harness) {
		done, failed, cancelled, lost := h.terminalJobs()
		h.clock.Advance(time.Second)
		w2 := h.worker()
		edge := h.running(w2, "q")
		h.complete(w2, edge)
		avail := h.insert("q", time.Time{})
		sched := h.insert("q", h.clock.Now().Add(time.Hour))
		run := h.running(w2, "r")
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Hour + time.Second); n != 0 {
			h.t.Fatalf("deleted %d rows that ended exactly age ago", n)
		}
		if n := h.deleteOldJobs(time.Hour); n != 4 {
			h.t.Fatalf("deleted %d rows, want 4", n)
		}
		if got, want := h.list(store.JobFilter{}), []ulid.ULID{edge, avail, sched, run}; !slices.Equal(got, want) {
			h.t.Fatalf("rows left %v, want %v (deleted %v)", got, want, []ulid.ULID{done, failed, cancelled, lost})
		}
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(0); n != 1 {
			h.t.Fatalf("deleted %d rows with age 0, want only the completed one", n)
		}
	}},
	{"ManyRowsDeletedThenListed", func(h *harness) {
		// Enough rows for a store to reorganise its indexes on the way.
		w := h.worker()
		var batch []store.NewJob
		for i := range 300 {
			batch = append(batch, store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(i)})
		}
		h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, batch); return err })
		done := ids(h.reserve(w, 250, "q"))
		h.complete(w, done...)
		h.clock.Advance(time.Hour)
		keep := h.insert("q", time.Time{})
		err := h.tx(func(tx store.Tx) error {
			if n, err := tx.DeleteOldJobs(h.ctx, time.Minute, 1000); n != 250 || err != nil {
				h.t.Errorf("DeleteOldJobs inside the aborted transaction = %d, %v; want 250", n, err)
			}
			return errAbort
		})
		h.wantErr(err, errAbort, "aborted DeleteOldJobs")
		if got := h.state().Jobs; len(got) != 301 {
			h.t.Fatalf("%d rows after a rolled-back delete, want 301", len(got))
		}
		if n := h.deleteOldJobs(time.Minute); n != 250 {
			h.t.Fatalf("deleted %d, want 250", n)
		}
		var want []ulid.ULID
		for _, j := range batch[250:] {
			want = append(want, j.ID)
		}
		want = append(want, keep)
		if got := ids(h.state().Jobs); !slices.Equal(got, want) {
			h.t.Fatalf("rows left: %d ids, want the 50 never reserved and the new one (%d)", len(got), len(want))
		}
		if got := h.list(store.JobFilter{After: batch[260].ID, Limit: 3}); !slices.Equal(got, want[11:14]) {
			h.t.Fatalf("page after row 260 = %v, want %v", got, want[11:14])
		}
	}},
	{"SchedulePointersBecomeNull", func(h *harness) {
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"a", "b"}) })
		first := h.running(w, "q")
		h.fail(w, first, "x")
		second := h.retry(first, 0)
		h.reserve(w, 1, "q")
		h.clock.Advance(time.Minute)
		h.complete(w, second.ID)
		at := h.clock.Now()
		h.do(func(tx store.Tx) error {
			if err := tx.AdvanceSchedule(h.ctx, "a", at, second.ID); err != nil {
				return err
			}
			return tx.AdvanceSchedule(h.ctx, "b", at, first)
		})
		if n := h.deleteOldJobs(time.Minute); n != 0 {
			h.t.Fatalf("deleted %d rows that ended exactly age ago", n)
		}
		if n := h.deleteOldJobs(time.Minute - time.Microsecond); n != 1 {
			h.t.Fatalf("deleted %d, want the first attempt only", n)
		}
		at = at.Truncate(time.Microsecond)
		want := []store.Schedule{{Name: "a", LastScheduledAt: at, LastScheduledJobID: second.ID}, {Name: "b", LastScheduledAt: at}}
		if got := h.state().Schedules; !sameSchedules(got, want) {
			h.t.Fatalf("schedules = %+v, want %+v", got, want)
		}
		h.clock.Advance(time.Microsecond)
		if n := h.deleteOldJobs(0); n != 1 {
			h.t.Fatalf("deleted %d, want the second attempt", n)
		}
		want[0].LastScheduledJobID = ulid.ULID{}
		if got := h.state().Schedules; !sameSchedules(got, want) {
			h.t.Fatalf("schedules = %+v, want %+v", got, want)
		}
	}},
	{"ChainGoesFromItsFirstAttemptWhenTimeGoesBack", func(h *harness) {
		// A next attempt ends before its predecessor when store time goes
		// back. Retention keeps it until the predecessor is gone, so the
		// predecessor never looks failed for good.
		w := h.worker()
		first := h.running(w, "q")
		h.fail(w, first, "x")
		h.clock.Advance(-time.Hour)
		second := h.retry(first, time.Minute)
		h.cancel(second.ID)
		h.clock.Advance(time.Hour + time.Minute)
		if n := h.deleteOldJobs(30 * time.Minute); n != 0 {
			h.t.Fatalf("deleted %d rows, want the second attempt kept while the first names it", n)
		}
		h.clock.Advance(time.Hour)
		h.wantChainDeleted(first, second.ID)
	}},
	{"ChainGoesFromItsFirstAttemptOnATie", func(h *harness) {
		// A retry that ends in the microsecond its predecessor failed in,
		// with a smaller id, comes first in (end time, id) order. Deleting
		// it first left the failed attempt's link NULL: its batch counted
		// it again (found by the pg-vs-mem differential).
		w := h.worker()
		first := h.running(w, "q")
		h.fail(w, first, "x")
		smaller := first // the same millisecond, entropy zero
		clear(smaller[6:])
		h.do(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, first, smaller, 0); return err })
		h.cancel(smaller)
		h.clock.Advance(time.Hour)
		var n int
		h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldJobs(h.ctx, time.Minute, 1); return err })
		if left := ids(h.state().Jobs); n != 1 || !slices.Equal(left, []ulid.ULID{smaller}) {
			h.t.Fatalf("limit 1 deleted %d rows and left %v, want the first attempt %s gone and its retry %s left", n, left, first, smaller)
		}
		if n := h.deleteOldJobs(time.Minute); n != 1 {
			h.t.Fatalf("the next call deleted %d rows, want the retry", n)
		}
	}},
}
