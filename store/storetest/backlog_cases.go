package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// During a backlog (each reservation takes all it asks for) a store may
// remember where its last reservation began and start the next one there
// (store/pg does, past the index entries of the jobs reserved before). A
// job that becomes available before that place, through this store, must
// still be the next one reserved.

// backlog inserts n jobs of priority 3 on queue q, then has w reserve
// two of them, and returns the ids left waiting in order.
func (h *harness) backlog(w ulid.ULID, n int) []ulid.ULID {
	h.t.Helper()
	var waiting []ulid.ULID
	for range n {
		waiting = append(waiting, h.insertAt("q", 3, time.Time{}))
	}
	if got := h.reserve(w, 2, "q"); !slices.Equal(ids(got), waiting[:2]) {
		h.t.Fatalf("reserved %v of the backlog, want %v", ids(got), waiting[:2])
	}
	return waiting[2:]
}

// wantNext requires the next reservation of one job of q to take want.
func (h *harness) wantNext(w, want ulid.ULID, what string) {
	h.t.Helper()
	if got := h.reserve(w, 1, "q"); len(got) != 1 || got[0].ID != want {
		h.t.Fatalf("after %s, reserved %v, want %s", what, ids(got), want)
	}
}

var backlogCases = []testCase{
	{"AnUrgentJobGoesFirst", func(h *harness) {
		w := h.worker()
		h.backlog(w, 5)
		h.wantNext(w, h.insertAt("q", 0, time.Time{}), "inserting a job of priority 0")
	}},
	{"AnOverdueJobGoesFirst", func(h *harness) {
		w := h.worker()
		h.backlog(w, 5)
		h.wantNext(w, h.insertAt("q", 3, h.clock.Now().Add(-time.Hour)), "inserting a job scheduled an hour ago")
	}},
	{"AJobInsertedAtTheSameTimeGoesByID", func(h *harness) {
		w := h.worker()
		waiting := h.backlog(w, 5)
		// Same priority and scheduled_at as the backlog, a later id: it
		// waits its turn.
		late := h.insertAt("q", 3, time.Time{})
		for _, want := range append(waiting, late) {
			h.wantNext(w, want, "inserting a job at the backlog's time")
		}
	}},
	{"APromotedJobGoesFirst", func(h *harness) {
		w := h.worker()
		due := h.insertAt("q", 3, h.clock.Now().Add(5*time.Second))
		h.clock.Advance(6 * time.Second) // due, not promoted yet
		h.backlog(w, 5)
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.wantNext(w, due, "promoting a job due before the backlog was inserted")
	}},
}
