package storetest

import (
	"strings"
	"time"

	"github.com/tickwork/tickwork/store"
)

var scheduleCases = []testCase{
	{"EnsureInsertsMissingOnly", func(h *harness) {
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"b", "a"}) })
		id := h.insert("q", time.Time{})
		at := h.clock.Now().Add(time.Hour)
		h.do(func(tx store.Tx) error { return tx.AdvanceSchedule(h.ctx, "b", at, id) })
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"c", "b", "c"}) })
		want := []store.Schedule{{Name: "a"}, {Name: "b", LastScheduledAt: at.Truncate(time.Microsecond), LastScheduledJobID: id}, {Name: "c"}}
		if got := h.state().Schedules; !sameSchedules(got, want) {
			h.t.Fatalf("schedules = %+v, want %+v", got, want)
		}
	}},
	{"InvalidNamesWriteNothing", func(h *harness) {
		for _, bad := range []string{"", strings.Repeat("s", store.MaxQueueNameBytes+1), "s\x00", "s\xff"} {
			err := h.tx(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"ok", bad}) })
			h.wantErr(err, store.ErrInvalid, "EnsureSchedules with a bad name")
		}
		if got := h.state().Schedules; len(got) != 0 {
			h.t.Fatalf("schedules = %+v, want none", got)
		}
	}},
	{"AdvanceUnknown", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { return tx.AdvanceSchedule(h.ctx, "nope", h.clock.Now(), h.newID()) })
		h.wantErr(err, store.ErrNotFound, "advance of an unknown schedule")
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"s"}) })
		err = h.tx(func(tx store.Tx) error { return tx.AdvanceSchedule(h.ctx, "s", h.clock.Now(), h.newID()) })
		h.wantErr(err, store.ErrNotFound, "advance to an unknown job")
		if got := h.state().Schedules; !sameSchedules(got, []store.Schedule{{Name: "s"}}) {
			h.t.Fatalf("schedules = %+v", got)
		}
	}},
	{"AdvanceWithoutJob", func(h *harness) {
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"s"}) })
		at := time.Date(2030, 1, 1, 0, 0, 0, 1, time.FixedZone("Z", 3600))
		h.do(func(tx store.Tx) error { return tx.AdvanceSchedule(h.ctx, "s", at, [16]byte{}) })
		want := []store.Schedule{{Name: "s", LastScheduledAt: at.Truncate(time.Microsecond).UTC()}}
		if got := h.state().Schedules; !sameSchedules(got, want) {
			h.t.Fatalf("schedules = %+v, want %+v", got, want)
		}
	}},
}
