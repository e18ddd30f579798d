package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// list runs ListJobs.
func (h *harness) list(f store.JobFilter) []ulid.ULID {
	h.t.Helper()
	var got []store.Job
	h.do(func(tx store.Tx) (err error) { got, err = tx.ListJobs(h.ctx, f); return err })
	return ids(got)
}

var listCases = []testCase{
	{"FiltersAndPaging", func(h *harness) {
		w := h.worker()
		a1 := h.running(w, "a")
		b1 := h.insert("b", time.Time{})
		a2 := h.insert("a", time.Time{})
		a3 := h.insert("a", h.clock.Now().Add(time.Hour))
		b2 := h.insert("b", time.Time{})
		for _, c := range []struct {
			f    store.JobFilter
			want []ulid.ULID
		}{
			{store.JobFilter{}, []ulid.ULID{a1, b1, a2, a3, b2}},
			{store.JobFilter{Queue: "a"}, []ulid.ULID{a1, a2, a3}},
			{store.JobFilter{Status: store.Available}, []ulid.ULID{b1, a2, b2}},
			{store.JobFilter{Status: store.Available, Queue: "b"}, []ulid.ULID{b1, b2}},
			{store.JobFilter{Status: store.Running}, []ulid.ULID{a1}},
			{store.JobFilter{Status: store.Scheduled}, []ulid.ULID{a3}},
			{store.JobFilter{Status: store.Failed}, nil},
			{store.JobFilter{Queue: "none"}, nil},
			{store.JobFilter{Limit: 2}, []ulid.ULID{a1, b1}},
			{store.JobFilter{After: b1, Limit: 2}, []ulid.ULID{a2, a3}},
			{store.JobFilter{After: a1, Queue: "a", Limit: 1}, []ulid.ULID{a2}},
			{store.JobFilter{After: b2}, nil},
			{store.JobFilter{After: h.newID()}, nil},
		} {
			if got := h.list(c.f); !slices.Equal(got, c.want) {
				h.t.Errorf("ListJobs(%+v) = %v, want %v", c.f, got, c.want)
			}
		}
	}},
	{"NewestFirstAndAttemptLinks", func(h *harness) {
		w := h.worker()
		a1 := h.running(w, "a")
		h.fail(w, a1, "boom")
		a2 := h.retry(a1, 0).ID
		b1 := h.insert("b", time.Time{})
		for _, c := range []struct {
			f    store.JobFilter
			want []ulid.ULID
		}{
			{store.JobFilter{NewestFirst: true}, []ulid.ULID{b1, a2, a1}},
			{store.JobFilter{NewestFirst: true, Limit: 2}, []ulid.ULID{b1, a2}},
			{store.JobFilter{NewestFirst: true, After: a2}, []ulid.ULID{a1}},
			{store.JobFilter{NewestFirst: true, After: a1}, nil},
			{store.JobFilter{NewestFirst: true, Queue: "a"}, []ulid.ULID{a2, a1}},
			{store.JobFilter{LastAttempt: true}, []ulid.ULID{a2, b1}},
			{store.JobFilter{LastAttempt: true, Status: store.Failed}, nil},
			{store.JobFilter{Status: store.Failed}, []ulid.ULID{a1}},
			{store.JobFilter{NextAttempt: a2}, []ulid.ULID{a1}},
			{store.JobFilter{NextAttempt: b1}, nil},
		} {
			if got := h.list(c.f); !slices.Equal(got, c.want) {
				h.t.Errorf("ListJobs(%+v) = %v, want %v", c.f, got, c.want)
			}
		}
	}},
	{"DefaultLimitIs100", func(h *harness) {
		var jobs []store.NewJob
		for i := range 105 {
			jobs = append(jobs, store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(i)})
		}
		h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, jobs); return err })
		if got := h.list(store.JobFilter{}); len(got) != 100 || got[99] != jobs[99].ID {
			h.t.Fatalf("ListJobs without limit returned %d rows", len(got))
		}
	}},
	{"QueueFilterThatCannotNameAQueue", func(h *harness) {
		h.insert("q", time.Time{})
		for _, queue := range []string{"q\x00", "q\xff", strings.Repeat("q", store.MaxQueueNameBytes+1)} {
			err := h.tx(func(tx store.Tx) error { _, err := tx.ListJobs(h.ctx, store.JobFilter{Queue: queue}); return err })
			h.wantErr(err, store.ErrInvalid, "ListJobs of queue "+names.Quote(queue))
		}
	}},
	{"GetUnknownJob", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { _, err := tx.GetJob(h.ctx, h.newID()); return err })
		h.wantErr(err, store.ErrNotFound, "GetJob of an unknown id")
	}},
}
