package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertUnique inserts jobs and returns the duplicates InsertJobs reported.
func (h *harness) insertUnique(jobs ...store.NewJob) []store.Duplicate {
	h.t.Helper()
	var dups []store.Duplicate
	h.do(func(tx store.Tx) (err error) { dups, err = tx.InsertJobs(h.ctx, jobs); return err })
	return dups
}

// keyed returns a new available job on queue q with unique key key.
func (h *harness) keyed(key string) store.NewJob {
	return store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(1), UniqueKey: key}
}

// wantDuplicateOf fails the test unless dups is exactly one duplicate, of
// the job at index i, whose existing row is holder.
func (h *harness) wantDuplicateOf(dups []store.Duplicate, i int, holder ulid.ULID) {
	h.t.Helper()
	if len(dups) != 1 || dups[0].Index != i || dups[0].Existing.ID != holder {
		h.t.Fatalf("duplicates %s, want #%d of %s", formatDuplicates(dups), i, holder)
	}
	if got := h.job(holder); store.FormatJob(got) != store.FormatJob(dups[0].Existing) {
		h.t.Fatalf("duplicate reports %s, the row is %s", store.FormatJob(dups[0].Existing), store.FormatJob(got))
	}
}

// wantJobCount fails the test unless the store holds n rows.
func (h *harness) wantJobCount(n int) {
	h.t.Helper()
	if got := len(h.state().Jobs); got != n {
		h.t.Fatalf("%d rows, want %d:\n%s", got, n, h.state())
	}
}

var uniqueCases = []testCase{
	{"DuplicateReturnsTheExistingRow", func(h *harness) {
		first := h.keyed("k")
		if dups := h.insertUnique(first); len(dups) != 0 {
			h.t.Fatalf("first insert reported duplicates %s", formatDuplicates(dups))
		}
		got := h.job(first.ID)
		if got.UniqueKey != "k|scheduled,available,running" || got.UniqueStates != store.LiveStatuses {
			h.t.Fatalf("stored key %q covering %s", got.UniqueKey, got.UniqueStates)
		}
		other := h.keyed("k")
		other.Queue = "elsewhere" // an explicit key is not scoped by queue
		h.wantDuplicateOf(h.insertUnique(h.keyed("j"), other), 1, first.ID)
		h.wantJobCount(2)
	}},
	{"BatchesSmallAndLargeKeepTheFirstOfEachKey", func(h *harness) {
		for _, n := range []int{5, 100} { // 100 is past store/pg's COPY threshold
			var jobs []store.NewJob
			for i := range n {
				jobs = append(jobs, h.keyed(fmt.Sprintf("batch%d-%d", n, i%3)))
			}
			dups := h.insertUnique(jobs...)
			if len(dups) != n-3 {
				h.t.Fatalf("batch of %d: %d duplicates, want %d", n, len(dups), n-3)
			}
			for k, d := range dups {
				if d.Index != k+3 || d.Existing.ID != jobs[d.Index%3].ID {
					h.t.Fatalf("batch of %d: duplicate %d is #%d of %s, want #%d of %s", n, k, d.Index, d.Existing.ID, k+3, jobs[(k+3)%3].ID)
				}
			}
		}
		h.wantJobCount(6)
	}},
	{"FinishedRowsFreeTheKeyUnlessCovered", func(h *harness) {
		w := h.worker()
		plain, kept := h.keyed("k"), h.keyed("k")
		kept.UniqueStates = store.LiveStatuses | store.StatusesOf(store.Completed)
		h.insertUnique(plain, kept) // different covered sets: different keys
		h.wantJobCount(2)
		h.reserve(w, 2, "q")
		h.complete(w, plain.ID, kept.ID)
		again, keptAgain := h.keyed("k"), h.keyed("k")
		keptAgain.UniqueStates = kept.UniqueStates
		h.wantDuplicateOf(h.insertUnique(again, keptAgain), 1, kept.ID)
		cancelled := again.ID
		if _, err := h.cancel(cancelled); err != nil {
			h.t.Fatalf("cancel: %v", err)
		}
		if dups := h.insertUnique(h.keyed("k")); len(dups) != 0 {
			h.t.Fatalf("a cancelled row still holds its key: %s", formatDuplicates(dups))
		}
	}},
	{"RetryAndRescueInheritTheKey", func(h *harness) {
		w := h.worker()
		failed := h.keyed("k")
		h.insertUnique(failed)
		h.reserve(w, 1, "q")
		var retry store.Job
		h.do(func(tx store.Tx) (err error) {
			if err = tx.FailJob(h.ctx, w, failed.ID, "boom"); err == nil {
				retry, err = tx.ScheduleRetry(h.ctx, failed.ID, h.newID(), time.Minute)
			}
			return err
		})
		if retry.UniqueKey != h.job(failed.ID).UniqueKey || retry.UniqueStates != store.LiveStatuses {
			h.t.Fatalf("retry %s does not carry the key of %s", store.FormatJob(retry), store.FormatJob(h.job(failed.ID)))
		}
		h.wantDuplicateOf(h.insertUnique(h.keyed("k")), 0, retry.ID)

		h.clock.Advance(time.Minute)
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.reserve(w, 1, "q")
		lost := h.declareDead(w)
		if len(lost) != 1 || lost[0].ID != retry.ID {
			h.t.Fatalf("rescued %v, want %s", ids(lost), retry.ID)
		}
		next := h.retry(retry.ID, 0)
		h.wantDuplicateOf(h.insertUnique(h.keyed("k")), 0, next.ID)
		h.wantJobCount(3)
	}},
	{"RetryRefusedWhileAnotherRowHoldsTheKey", func(h *harness) {
		// An abandoned failure retried later by hand (worker jobs retry)
		// after a new row took its key.
		w := h.worker()
		failed := h.keyed("k")
		h.insertUnique(failed)
		h.reserve(w, 1, "q")
		h.fail(w, failed.ID, "boom")
		holder := h.keyed("k")
		if dups := h.insertUnique(holder); len(dups) != 0 {
			h.t.Fatalf("a failed row still holds its key: %s", formatDuplicates(dups))
		}
		err := h.tx(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, failed.ID, h.newID(), 0); return err })
		h.wantErr(err, store.ErrConflict, "retry while another row holds the key")
		h.wantJobCount(2)
	}},
	{"PeriodMakesOneKeyPerWindow", func(h *harness) {
		const period = time.Minute
		h.clock.Set(h.clock.Now().Truncate(period).Add(period + 10*time.Second))
		windowed := func() store.NewJob { j := h.keyed("k"); j.UniquePeriod = period; return j }
		first := windowed()
		h.insertUnique(first)
		h.clock.Advance(40 * time.Second)
		h.wantDuplicateOf(h.insertUnique(windowed()), 0, first.ID)
		h.clock.Advance(10 * time.Second) // the next window
		second := windowed()
		if dups := h.insertUnique(second); len(dups) != 0 {
			h.t.Fatalf("next window: duplicates %s", formatDuplicates(dups))
		}
		if a, b := h.job(first.ID).UniqueKey, h.job(second.ID).UniqueKey; a == b || !strings.HasPrefix(b, "k|") {
			h.t.Fatalf("keys of two windows: %q and %q", a, b)
		}
	}},
	{"DuplicateIDIsAConflictWhateverTheKey", func(h *harness) {
		first := h.keyed("k")
		h.insertUnique(first)
		again := first
		err := h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, []store.NewJob{again}); return err })
		h.wantErr(err, store.ErrConflict, "insert an existing id with a held key")
		twice := h.keyed("j")
		err = h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, []store.NewJob{twice, twice}); return err })
		h.wantErr(err, store.ErrConflict, "insert one id twice with one key")
		h.wantJobCount(1)
	}},
	{"NotifiesEachQueueOnceInQueueOrderAndNotForDuplicates", func(h *harness) {
		ch := h.listen()
		a, b, c := h.keyed("a"), h.keyed("b"), h.keyed("c")
		a.Queue, b.Queue, c.Queue = "zeta", "alpha", "zeta"
		later := h.keyed("later")
		later.ScheduledAt = h.clock.Now().Add(time.Hour)
		h.insertUnique(a, b, c, later)
		again := h.keyed("a")
		again.Queue = "beta"
		h.insertUnique(again) // a duplicate: no notification
		h.insertUnique(h.keyed("d"))
		h.wantNotes(ch, available("alpha"), available("zeta"), available("q"))
	}},
	{"InvalidUniqueFieldsWriteNothing", func(h *harness) {
		bad := map[string]store.NewJob{
			"states without key": {ID: h.newID(), Queue: "q", Payload: payload(1), UniqueStates: store.LiveStatuses},
			"period without key": {ID: h.newID(), Queue: "q", Payload: payload(1), UniquePeriod: time.Minute},
			"NUL in key":         h.keyed("k\x00"),
			"long key":           h.keyed(strings.Repeat("k", store.MaxUniqueKeyBytes+1)),
			"not covering running": func() store.NewJob {
				j := h.keyed("k")
				j.UniqueStates = store.StatusesOf(store.Scheduled, store.Available)
				return j
			}(),
			"covering failed": func() store.NewJob {
				j := h.keyed("k")
				j.UniqueStates = store.LiveStatuses | store.StatusesOf(store.Failed)
				return j
			}(),
			"negative period": func() store.NewJob { j := h.keyed("k"); j.UniquePeriod = -time.Second; return j }(),
		}
		for _, name := range sortedKeys(bad) {
			good := h.keyed("good")
			err := h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, []store.NewJob{good, bad[name]}); return err })
			h.wantErr(err, store.ErrInvalid, name)
		}
		h.wantJobCount(0)
	}},
}
