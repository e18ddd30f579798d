package storetest

import (
	"errors"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func (h *harness) setRate(q string, n int, period time.Duration) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.SetQueueRate(h.ctx, q, n, period) })
}

// wantReserved reserves up to limit jobs of q for w and fails unless it got
// want of them.
func (h *harness) wantReserved(w ulid.ULID, q string, limit, want int, when string) {
	h.t.Helper()
	if got := h.reserve(w, limit, q); len(got) != want {
		h.t.Fatalf("%s: reserved %d jobs of %s, want %d", when, len(got), q, want)
	}
}

var errRolledBack = errors.New("rolled back on purpose")

var rateCases = []testCase{
	{"RateAdmitsAtMostNStartsPerPeriodAcrossWorkers", func(h *harness) {
		a, b := h.worker(), h.worker()
		for range 6 {
			h.insert("q", time.Time{})
		}
		h.setRate("q", 2, 10*time.Second)
		h.wantReserved(a, "q", 10, 2, "first reservation")
		h.wantReserved(b, "q", 10, 0, "another worker, same instant")
		h.clock.Advance(10*time.Second - time.Microsecond)
		h.wantReserved(b, "q", 10, 0, "a microsecond before the period has passed")
		h.clock.Advance(time.Microsecond)
		h.wantReserved(b, "q", 1, 1, "once the period has passed")
		h.wantReserved(a, "q", 10, 1, "the second slot, at the same instant")
		h.wantReserved(a, "q", 10, 0, "both slots used again")
	}},
	{"RateCountsStartsNotRunningJobs", func(h *harness) {
		w := h.worker()
		h.setRate("q", 1, time.Minute)
		done := h.running(w, "q")
		h.complete(w, done)
		h.insert("q", time.Time{})
		h.wantReserved(w, "q", 10, 0, "after the started job completed, within the period")
	}},
	{"RetriedRowsCountAgainWhenTheyStart", func(h *harness) {
		w := h.worker()
		h.setRate("q", 2, time.Minute)
		id := h.running(w, "q")
		h.fail(w, id, "boom")
		h.retry(id, 0)
		h.wantReserved(w, "q", 10, 1, "the retry, with one start left")
		h.insert("q", time.Time{})
		h.wantReserved(w, "q", 10, 0, "the retry's start counted")
	}},
	{"RateAndLimitBothBind", func(h *harness) {
		w := h.worker()
		for range 5 {
			h.insert("q", time.Time{})
		}
		h.setLimit("q", 1)
		h.setRate("q", 3, time.Minute)
		h.wantReserved(w, "q", 10, 1, "limit 1, rate 3")
		h.setLimit("q", 0)
		h.wantReserved(w, "q", 10, 2, "no limit, 2 starts left of the rate")
		if s := h.state(); len(s.Queues) != 1 || s.Queues[0].Rate != 3 || s.Queues[0].RatePeriod != time.Minute || s.Queues[0].Limit != 0 {
			h.t.Fatalf("queues rows %+v, want q with rate 3 per minute and no limit", s.Queues)
		}
	}},
	{"SlotsUnusedByAReservationStayFree", func(h *harness) {
		w := h.worker()
		h.setRate("q", 3, time.Minute)
		h.insert("q", time.Time{})
		h.wantReserved(w, "q", 10, 1, "the only job")
		for range 3 {
			h.insert("q", time.Time{})
		}
		h.wantReserved(w, "q", 10, 2, "the two starts left")
	}},
	{"PausedOrRolledBackReservationsUseNoSlot", func(h *harness) {
		w := h.worker()
		h.setRate("q", 1, time.Minute)
		h.insert("q", time.Time{})
		h.pause("q")
		h.wantReserved(w, "q", 10, 0, "paused")
		h.resume("q")
		err := h.tx(func(tx store.Tx) error {
			if got, err := tx.Reserve(h.ctx, w, []string{"q"}, 1); err != nil || len(got) != 1 {
				h.t.Fatalf("reserve in the rolled-back transaction: %v, %d jobs", err, len(got))
			}
			return errRolledBack
		})
		h.wantErr(err, errRolledBack, "the rolled-back reservation")
		h.wantReserved(w, "q", 10, 1, "after a pause and a rollback")
	}},
	{"LoweringARateKeepsTheLatestStarts", func(h *harness) {
		w := h.worker()
		for range 8 {
			h.insert("q", time.Time{})
		}
		h.setRate("q", 3, time.Minute)
		h.wantReserved(w, "q", 1, 1, "at 0s")
		h.clock.Advance(10 * time.Second)
		h.wantReserved(w, "q", 10, 2, "at 10s")
		h.setRate("q", 2, time.Minute) // keeps the two starts of 10s
		h.clock.Advance(55 * time.Second)
		h.wantReserved(w, "q", 10, 0, "at 65s: the dropped slot was the start at 0s")
		h.clock.Advance(5 * time.Second)
		h.wantReserved(w, "q", 10, 2, "at 70s")
		h.setRate("q", 4, time.Minute)
		h.wantReserved(w, "q", 10, 2, "two new slots")
		h.setRate("q", 4, 10*time.Second) // a shorter period frees every slot 10s after its start
		h.clock.Advance(10 * time.Second)
		h.wantReserved(w, "q", 10, 1, "the last job, 10s later")
	}},
	{"RemovingTheRateForgetsItsStarts", func(h *harness) {
		w := h.worker()
		h.pause("q")
		h.resume("q")
		h.setRate("q", 1, time.Hour)
		h.running(w, "q")
		h.setRate("q", 0, 0)
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("queues rows %+v after the rate was removed, want none", s.Queues)
		}
		h.setRate("q", 1, time.Hour)
		h.insert("q", time.Time{})
		h.wantReserved(w, "q", 10, 1, "a new rate")
	}},
	{"BadRatesAreRefused", func(h *harness) {
		for _, r := range []struct {
			name   string
			n      int
			period time.Duration
		}{
			{"q", -1, time.Minute}, {"q", store.MaxQueueRate + 1, time.Minute}, {"q", 1, 0}, {"q", 1, -time.Second},
			{"q", 1, store.MinRatePeriod - time.Microsecond}, {"q", 1, store.MaxRatePeriod + time.Microsecond},
			{"", 1, time.Minute}, {"a\x00b", 0, 0},
		} {
			err := h.tx(func(tx store.Tx) error { return tx.SetQueueRate(h.ctx, r.name, r.n, r.period) })
			h.wantErr(err, store.ErrInvalid, "a bad rate")
		}
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("refused rates left rows %+v", s.Queues)
		}
		h.setRate("q", store.MaxQueueRate, store.MaxRatePeriod)
		h.setRate("q", 1, store.MinRatePeriod+time.Nanosecond) // kept to the microsecond
		if s := h.state(); len(s.Queues) != 1 || s.Queues[0].Rate != 1 || s.Queues[0].RatePeriod != store.MinRatePeriod {
			h.t.Fatalf("queues rows %+v, want q at 1 per %s", s.Queues, store.MinRatePeriod)
		}
	}},
	{"ListQueuesShowsTheRate", func(h *harness) {
		h.setRate("r", 100, time.Minute)
		h.insert("r", time.Time{})
		got := h.queues()
		if len(got) != 1 || got[0].Rate != 100 || got[0].RatePeriod != time.Minute || got[0].Counts[store.Available] != 1 {
			h.t.Fatalf("listed %+v, want r at 100 per minute with one available job", got)
		}
	}},
}
