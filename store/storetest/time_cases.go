package storetest

import (
	"time"

	"github.com/tickwork/tickwork/store"
)

var timeCases = []testCase{
	{"NowIsClockTruncatedToMicrosecondInUTC", func(h *harness) {
		h.clock.Set(time.Date(2025, 6, 1, 10, 0, 0, 999_999_999, time.FixedZone("X", 3600)))
		var got time.Time
		h.do(func(tx store.Tx) (err error) {
			got, err = tx.Now(h.ctx)
			return err
		})
		want := time.Date(2025, 6, 1, 9, 0, 0, 999_999_000, time.UTC)
		if !got.Equal(want) || got.Location() != time.UTC {
			h.t.Fatalf("Now = %s (%s), want %s in UTC", got, got.Location(), want)
		}
	}},
	{"NowIsFixedForTheTransaction", func(h *harness) {
		// Like PostgreSQL's now(): the transaction's start time, whatever
		// the clock does while it runs.
		w := h.worker()
		start := h.now()
		h.do(func(tx store.Tx) error {
			h.clock.Advance(time.Hour)
			if now, err := tx.Now(h.ctx); err != nil || !now.Equal(start) {
				h.t.Errorf("Now after the clock moved = %s, %v; want %s", now, err, start)
			}
			return tx.Heartbeat(h.ctx, w)
		})
		s := h.state()
		if !s.Workers[0].LastSeenAt.Equal(start) {
			h.t.Fatalf("heartbeat wrote %s, want the transaction start %s", s.Workers[0].LastSeenAt, start)
		}
	}},
	{"TimesAreUTCAndMicroseconds", func(h *harness) {
		w := h.worker()
		at := time.Date(2025, 3, 1, 15, 0, 0, 777_777_777, time.FixedZone("Y", -7200))
		id := h.insert("q", at)
		h.clock.Set(at.Add(time.Second))
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.reserve(w, 1, "q")
		j := h.job(id)
		for name, tm := range map[string]time.Time{"created_at": j.CreatedAt, "scheduled_at": j.ScheduledAt, "started_at": j.StartedAt} {
			if tm.Location() != time.UTC || tm.Nanosecond()%1000 != 0 {
				h.t.Errorf("%s = %s: want UTC, whole microseconds", name, ts(tm))
			}
		}
		if want := at.Truncate(time.Microsecond).UTC(); !j.ScheduledAt.Equal(want) {
			h.t.Errorf("scheduled_at = %s, want %s", ts(j.ScheduledAt), ts(want))
		}
	}},
}
