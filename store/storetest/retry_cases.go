package storetest

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// retry runs ScheduleRetry and returns the new row.
func (h *harness) retry(id ulid.ULID, delay time.Duration) store.Job {
	h.t.Helper()
	var j store.Job
	newID := h.newID()
	h.do(func(tx store.Tx) (err error) { j, err = tx.ScheduleRetry(h.ctx, id, newID, delay); return err })
	if j.ID != newID {
		h.t.Fatalf("ScheduleRetry returned row %s, want the new id %s", j.ID, newID)
	}
	return j
}

var retryCases = []testCase{
	{"NewAttemptRow", func(h *harness) {
		w := h.worker()
		id := h.newID()
		meta := []byte(`{"k": "v"}`)
		h.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "q", Payload: payload(3), Metadata: meta, ScheduleName: "s"}})
			return err
		})
		h.reserve(w, 1, "q")
		h.fail(w, id, "boom")
		h.clock.Advance(time.Second)
		delay := 10*time.Second + 1500*time.Nanosecond
		got := h.retry(id, delay)
		want := store.Job{ID: got.ID, Queue: "q", Payload: payload(3), Metadata: meta, Status: store.Scheduled, Attempt: 1,
			CreatedAt: h.now(), ScheduledAt: h.now().Add(10*time.Second + time.Microsecond), ScheduleName: "s"}
		if store.FormatJob(got) != store.FormatJob(want) {
			h.t.Fatalf("retry row:\n got  %s\n want %s", store.FormatJob(got), store.FormatJob(want))
		}
		h.wantJob(got.ID, want)
		if old := h.job(id); old.NextAttemptID != got.ID || old.Status != store.Failed {
			h.t.Fatalf("old row: %s", store.FormatJob(old))
		}
	}},
	{"NoDelayIsAvailable", func(h *harness) {
		w := h.worker()
		for _, delay := range []time.Duration{0, -time.Minute} {
			id := h.running(w, "q")
			h.fail(w, id, "x")
			got := h.retry(id, delay)
			if got.Status != store.Available || !got.ScheduledAt.Equal(h.now().Add(delay)) {
				h.t.Fatalf("retry with delay %v: %s", delay, store.FormatJob(got))
			}
			if r := h.reserve(w, 1, "q"); len(r) != 1 || r[0].ID != got.ID {
				h.t.Fatalf("reserve after an immediate retry = %v, want [%s]", ids(r), got.ID)
			}
		}
	}},
	{"Conflicts", func(h *harness) {
		w := h.worker()
		running := h.running(w, "q")
		done := h.running(w, "q")
		h.complete(w, done)
		cancelled := h.insert("q", time.Time{})
		h.do(func(tx store.Tx) error { _, err := tx.CancelJob(h.ctx, cancelled); return err })
		avail := h.insert("q", time.Time{})
		sched := h.insert("q", h.clock.Now().Add(time.Hour))
		failed := h.running(w, "r")
		h.fail(w, failed, "x")
		h.retry(failed, time.Second)
		other := h.running(w, "r")
		h.fail(w, other, "x")
		before := h.state()
		for _, id := range []ulid.ULID{running, done, cancelled, avail, sched, failed} {
			err := h.tx(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, id, h.newID(), 0); return err })
			h.wantErr(err, store.ErrConflict, "ScheduleRetry of "+store.FormatJob(h.job(id)))
		}
		err := h.tx(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, other, avail, 0); return err })
		h.wantErr(err, store.ErrConflict, "ScheduleRetry to an existing id")
		err = h.tx(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, h.newID(), h.newID(), 0); return err })
		h.wantErr(err, store.ErrNotFound, "ScheduleRetry of an unknown job")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("refused retries changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	}},
	{"AttemptChain", func(h *harness) {
		w := h.worker()
		first := h.running(w, "q")
		chain := []ulid.ULID{first}
		for attempt := 1; attempt <= 3; attempt++ {
			prev := chain[len(chain)-1]
			h.fail(w, prev, "again")
			next := h.retry(prev, time.Minute)
			if next.Attempt != attempt {
				h.t.Fatalf("attempt %d row has attempt %d", attempt, next.Attempt)
			}
			h.clock.Advance(time.Minute)
			h.do(func(tx store.Tx) error { _, err := tx.PromoteScheduledJobs(h.ctx); return err })
			if r := h.reserve(w, 1, "q"); len(r) != 1 || r[0].ID != next.ID {
				h.t.Fatalf("reserve = %v, want attempt %d %s", ids(r), attempt, next.ID)
			}
			chain = append(chain, next.ID)
		}
		h.complete(w, chain[len(chain)-1])
		for i, id := range chain[:len(chain)-1] {
			if j := h.job(id); j.NextAttemptID != chain[i+1] || j.Attempt != i {
				h.t.Errorf("link %d: %s", i, store.FormatJob(j))
			}
		}
	}},
	{"SchedulePointerMoves", func(h *harness) {
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"nightly", "other"}) })
		id := h.newID()
		at := h.clock.Now().Add(-time.Second)
		h.do(func(tx store.Tx) error {
			if _, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "q", Payload: payload(1), ScheduledAt: at, ScheduleName: "nightly"}}); err != nil {
				return err
			}
			return tx.AdvanceSchedule(h.ctx, "nightly", at, id)
		})
		h.reserve(w, 1, "q")
		h.fail(w, id, "x")
		next := h.retry(id, time.Second)
		want := []store.Schedule{{Name: "nightly", LastScheduledAt: at.Truncate(time.Microsecond), LastScheduledJobID: next.ID}, {Name: "other"}}
		if got := h.state().Schedules; !sameSchedules(got, want) {
			h.t.Fatalf("schedules = %+v, want %+v", got, want)
		}
		if next.ScheduleName != "nightly" {
			h.t.Fatalf("retry row schedule = %q", next.ScheduleName)
		}
	}},
}

func sameSchedules(a, b []store.Schedule) bool {
	return store.State{Schedules: a}.String() == store.State{Schedules: b}.String()
}
