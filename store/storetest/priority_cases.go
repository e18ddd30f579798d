package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertAt inserts one job on queue with priority, scheduled at at (zero:
// now), and returns its id.
func (h *harness) insertAt(queue string, priority int, at time.Time) ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: queue, Payload: payload(1), ScheduledAt: at, Priority: priority}})
		return err
	})
	return id
}

// reserveOneByOne reserves the available jobs of queues one at a time and
// returns their ids in the order taken.
func (h *harness) reserveOneByOne(w ulid.ULID, queues ...string) []ulid.ULID {
	h.t.Helper()
	var order []ulid.ULID
	for {
		got := h.reserve(w, 1, queues...)
		if len(got) == 0 {
			return order
		}
		order = append(order, got[0].ID)
	}
}

var priorityCases = []testCase{
	{"PriorityThenScheduledTimeThenID", func(h *harness) {
		w := h.worker()
		start := h.clock.Now()
		early := h.insertAt("q", 3, time.Time{})
		urgent := h.insertAt("q", 0, time.Time{})
		h.clock.Advance(time.Second)
		later := h.insertAt("q", 3, time.Time{})
		// Made last but scheduled an hour ago, as a promoted row keeps its
		// time: within its priority it goes first, whatever its id.
		overdue := h.insertAt("q", 3, start.Add(-time.Hour))
		tie := h.insertAt("q", 3, time.Time{}) // same scheduled_at as later: id decides
		want := []ulid.ULID{urgent, overdue, early, later, tie}
		if got := h.reserveOneByOne(w, "q"); !slices.Equal(got, want) {
			h.t.Fatalf("reserved in order %v, want %v", got, want)
		}
	}},
	{"PriorityMergesAcrossQueues", func(h *harness) {
		w := h.worker()
		a := h.insertAt("a", 5, time.Time{})
		b := h.insertAt("b", 1, time.Time{})
		c := h.insertAt("a", 1, time.Time{})
		got := h.reserve(w, 2, "a", "b")
		if want := []ulid.ULID{b, c}; !slices.Equal(ids(got), want) {
			h.t.Fatalf("reserved %v, want %v (in id order; not %s of priority 5)", ids(got), want, a)
		}
		if got[0].Priority != 1 || got[1].Priority != 1 {
			h.t.Errorf("returned priorities %d, %d, want 1, 1", got[0].Priority, got[1].Priority)
		}
	}},
	{"RetryKeepsPriority", func(h *harness) {
		w := h.worker()
		id := h.insertAt("q", 7, time.Time{})
		if got := h.reserve(w, 1, "q"); len(got) != 1 {
			h.t.Fatalf("reserved %v", ids(got))
		}
		h.fail(w, id, "again")
		var next store.Job
		h.do(func(tx store.Tx) (err error) {
			next, err = tx.ScheduleRetry(h.ctx, id, h.newID(), 0)
			return err
		})
		if next.Priority != 7 || h.job(next.ID).Priority != 7 {
			h.t.Fatalf("retry has priority %d (stored %d), want 7", next.Priority, h.job(next.ID).Priority)
		}
	}},
	{"PriorityOutOfRangeIsRefused", func(h *harness) {
		for _, p := range []int{store.MinPriority - 1, store.MaxPriority + 1} {
			err := h.tx(func(tx store.Tx) error {
				_, err := tx.InsertJobs(h.ctx, []store.NewJob{
					{ID: h.newID(), Queue: "q", Payload: payload(1)},
					{ID: h.newID(), Queue: "q", Payload: payload(2), Priority: p},
				})
				return err
			})
			h.wantErr(err, store.ErrInvalid, "insert with priority out of range")
		}
		if s := h.state(); len(s.Jobs) != 0 {
			h.t.Fatalf("a refused batch left %d rows", len(s.Jobs))
		}
	}},
}
