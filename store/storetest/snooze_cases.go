package storetest

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// snooze runs SnoozeJob for worker and returns the new row.
func (h *harness) snooze(worker, id ulid.ULID, delay time.Duration) store.Job {
	h.t.Helper()
	var j store.Job
	newID := h.newID()
	h.do(func(tx store.Tx) (err error) { j, err = tx.SnoozeJob(h.ctx, worker, id, newID, delay); return err })
	if j.ID != newID {
		h.t.Fatalf("SnoozeJob returned row %s, want the new id %s", j.ID, newID)
	}
	return j
}

// runningJob inserts nj and has worker reserve it.
func (h *harness) runningJob(worker ulid.ULID, nj store.NewJob) store.Job {
	h.t.Helper()
	h.insertUnique(nj)
	got := h.reserve(worker, 1, nj.Queue)
	if len(got) != 1 || got[0].ID != nj.ID {
		h.t.Fatalf("reserve of the only available job %s returned %v", nj.ID, ids(got))
	}
	return got[0]
}

var snoozeCases = []testCase{
	{"SameAttemptOneMoreSnooze", func(h *harness) {
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"nightly"}) })
		meta := []byte(`{"k": "v"}`)
		nj := store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(3), Metadata: meta, ScheduleName: "nightly",
			UniqueKey: "k", Priority: 4, MaxAttempts: 7}
		run := h.runningJob(w, nj)
		h.do(func(tx store.Tx) error { return tx.AdvanceSchedule(h.ctx, "nightly", h.now(), nj.ID) })
		h.clock.Advance(time.Second)
		delay := 10*time.Second + 1500*time.Nanosecond
		got := h.snooze(w, nj.ID, delay)
		want := store.Job{ID: got.ID, Queue: "q", Payload: payload(3), Metadata: meta, Status: store.Scheduled, Attempt: 0,
			CreatedAt: h.now(), ScheduledAt: h.now().Add(10*time.Second + time.Microsecond), ScheduleName: "nightly",
			UniqueKey: run.UniqueKey, UniqueStates: run.UniqueStates, Priority: 4, MaxAttempts: 7, Snoozes: 1}
		if store.FormatJob(got) != store.FormatJob(want) {
			h.t.Fatalf("snooze row:\n got  %s\n want %s", store.FormatJob(got), store.FormatJob(want))
		}
		h.wantJob(got.ID, want)
		old := run
		old.Status, old.CompletedAt, old.NextAttemptID = store.Snoozed, h.now(), got.ID
		h.wantJob(nj.ID, old)
		if sc := h.state().Schedules; len(sc) != 1 || sc[0].LastScheduledJobID != got.ID {
			h.t.Fatalf("the schedule does not follow the snooze: %+v", sc)
		}
		// The next snooze counts on; a retry keeps the count and the bound.
		h.clock.Advance(delay)
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.reserve(w, 1, "q")
		again := h.snooze(w, got.ID, time.Second)
		h.clock.Advance(time.Second)
		h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
		h.reserve(w, 1, "q")
		h.fail(w, again.ID, "boom")
		retry := h.retry(again.ID, time.Second)
		if again.Snoozes != 2 || again.Attempt != 0 || retry.Snoozes != 2 || retry.Attempt != 1 || retry.MaxAttempts != 7 {
			h.t.Fatalf("second snooze %s, then its retry %s", store.FormatJob(again), store.FormatJob(retry))
		}
	}},
	{"NoDelayIsAvailableAndNotifies", func(h *harness) {
		w := h.worker()
		ch := h.listen()
		for _, delay := range []time.Duration{0, -time.Minute} {
			id := h.running(w, "q")
			h.wantNotes(ch, available("q"))
			got := h.snooze(w, id, delay)
			if got.Status != store.Available || !got.ScheduledAt.Equal(h.now().Add(delay)) {
				h.t.Fatalf("snooze with delay %v: %s", delay, store.FormatJob(got))
			}
			h.wantNotes(ch, available("q"))
			if r := h.reserve(w, 1, "q"); len(r) != 1 || r[0].ID != got.ID {
				h.t.Fatalf("reserve after an immediate snooze = %v, want [%s]", ids(r), got.ID)
			}
			h.complete(w, got.ID)
		}
	}},
	{"FencedAndConflicts", func(h *harness) {
		w, other := h.worker(), h.worker()
		running := h.running(w, "q")
		done := h.running(w, "q")
		h.complete(w, done)
		failed := h.failNext(w, "q")
		cancelled := h.running(w, "q")
		if _, err := h.cancel(cancelled); err != nil {
			h.t.Fatal(err)
		}
		avail := h.insert("q", time.Time{})
		before := h.state()
		for _, c := range []struct {
			worker, id ulid.ULID
			what       string
		}{
			{other, running, "another worker's job"}, {ulid.ULID{}, running, "the zero worker"}, {w, done, "a completed job"},
			{w, avail, "an available job"}, {w, failed, "a failed job"}, {w, cancelled, "a cancelled job"}, {w, h.newID(), "an unknown job"},
		} {
			err := h.tx(func(tx store.Tx) error {
				_, err := tx.SnoozeJob(h.ctx, c.worker, c.id, h.newID(), time.Second)
				return err
			})
			h.wantErr(err, store.ErrFenced, "SnoozeJob of "+c.what)
		}
		err := h.tx(func(tx store.Tx) error { _, err := tx.SnoozeJob(h.ctx, other, running, avail, time.Second); return err })
		h.wantErr(err, store.ErrFenced, "SnoozeJob fenced and to an existing id")
		err = h.tx(func(tx store.Tx) error { _, err := tx.SnoozeJob(h.ctx, w, running, avail, time.Second); return err })
		h.wantErr(err, store.ErrConflict, "SnoozeJob to an existing id")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("refused snoozes changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	}},
	{"TheKeyPassesToTheNextRow", func(h *harness) {
		w := h.worker()
		// A key covering every status a key may cover: the snoozed row
		// still lets it go.
		nj := h.keyed("k")
		nj.UniqueStates = store.LiveStatuses | store.StatusesOf(store.Completed, store.Cancelled)
		h.runningJob(w, nj)
		next := h.snooze(w, nj.ID, time.Minute)
		h.wantDuplicateOf(h.insertUnique(store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(2), UniqueKey: "k",
			UniqueStates: nj.UniqueStates}), 0, next.ID)
		if h.job(nj.ID).Holds() {
			h.t.Fatalf("the snoozed row holds its key: %s", store.FormatJob(h.job(nj.ID)))
		}
	}},
	{"SnoozedRowsAreTerminal", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		next := h.snooze(w, id, time.Hour)
		if _, err := h.cancel(id); err == nil {
			h.t.Fatal("a snoozed row was cancelled")
		}
		if got := h.list(store.JobFilter{Status: store.Snoozed}); len(got) != 1 || got[0] != id {
			h.t.Fatalf("listing snoozed rows = %v, want [%s]", got, id)
		}
		if got := h.list(store.JobFilter{Status: store.Failed}); len(got) != 0 {
			h.t.Fatalf("listing failed rows = %v, want none", got)
		}
		h.clock.Advance(2 * time.Hour)
		if n := h.deleteOldJobs(time.Hour); n != 1 {
			h.t.Fatalf("retention deleted %d rows, want the snoozed one", n)
		}
		if j := h.job(next.ID); j.Status != store.Scheduled {
			h.t.Fatalf("the snooze's row after retention: %s", store.FormatJob(j))
		}
	}},
}

var maxAttemptsCases = []testCase{
	{"StoredOnEveryInsertPathAndKept", func(h *harness) {
		w := h.worker()
		// One row, a small batch, a batch past store/pg's COPY threshold
		// (with and without a bound on some rows) and a keyed batch.
		var batches [][]store.NewJob
		for _, n := range []int{1, 3, 100} {
			var plain, mixed []store.NewJob
			for i := range n {
				plain = append(plain, store.NewJob{ID: h.newID(), Queue: "p", Payload: payload(i)})
				mixed = append(mixed, store.NewJob{ID: h.newID(), Queue: "m", Payload: payload(i), MaxAttempts: i % 3})
			}
			batches = append(batches, plain, mixed)
		}
		keyed := h.keyed("k")
		keyed.MaxAttempts = store.MaxJobAttempts
		batches = append(batches, []store.NewJob{keyed})
		for _, b := range batches {
			h.insertUnique(b...)
			for _, nj := range b {
				if got := h.job(nj.ID).MaxAttempts; got != nj.MaxAttempts {
					h.t.Fatalf("job inserted with max attempts %d reads %d", nj.MaxAttempts, got)
				}
			}
		}
		run := h.runningJob(w, store.NewJob{ID: h.newID(), Queue: "r", Payload: payload(1), MaxAttempts: 2})
		lost := h.declareDead(w)
		if len(lost) != 1 || lost[0].MaxAttempts != 2 {
			h.t.Fatalf("rescue returned %s", fmtJobs(lost))
		}
		if retry := h.retry(run.ID, 0); retry.MaxAttempts != 2 {
			h.t.Fatalf("the rescued job's retry %s", store.FormatJob(retry))
		}
	}},
	{"OutOfRangeIsRefused", func(h *harness) {
		for _, n := range []int{-1, store.MaxJobAttempts + 1} {
			err := h.tx(func(tx store.Tx) error {
				_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: h.newID(), Queue: "q", Payload: payload(1), MaxAttempts: n}})
				return err
			})
			h.wantErr(err, store.ErrInvalid, "insert with max attempts out of range")
		}
		h.wantJobCount(0)
	}},
}
