package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

var rescueCases = []testCase{
	{"LostJobsOfDeadWorkers", func(h *harness) {
		dead1, dead2, alive := h.worker(), h.worker(), h.worker()
		a := h.running(dead2, "q")
		b := h.running(dead1, "q")
		keep := h.running(alive, "q")
		done := h.running(dead1, "q")
		h.complete(dead1, done)
		h.clock.Advance(3 * time.Minute)
		h.do(func(tx store.Tx) error { return tx.Heartbeat(h.ctx, alive) })
		var lost []store.Job
		h.do(func(tx store.Tx) error {
			if _, err := tx.ShutdownDeadWorkers(h.ctx, 2*time.Minute); err != nil {
				return err
			}
			var err error
			lost, err = tx.RescueLostJobs(h.ctx)
			return err
		})
		if want := []ulid.ULID{a, b}; !slices.Equal(ids(lost), want) {
			h.t.Fatalf("rescued %v, want %v", ids(lost), want)
		}
		for _, j := range lost {
			want := h.job(j.ID)
			if j.Status != store.Lost || !j.FailedAt.Equal(h.now()) || j.FailedReason != "worker "+j.StartedBy.String()+" was declared dead" {
				h.t.Errorf("lost row: %s", store.FormatJob(j))
			}
			if store.FormatJob(want) != store.FormatJob(j) {
				h.t.Errorf("returned %s\nstored   %s", store.FormatJob(j), store.FormatJob(want))
			}
		}
		if h.job(keep).Status != store.Running || h.job(done).Status != store.Completed {
			h.t.Fatal("rescue touched a live worker's or a finished job")
		}
		var again []store.Job
		h.do(func(tx store.Tx) (err error) { again, err = tx.RescueLostJobs(h.ctx); return err })
		if len(again) != 0 {
			h.t.Fatalf("second rescue found %v", ids(again))
		}
	}},
	{"JobOfDeletedWorker", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		h.clock.Advance(time.Second)
		h.do(func(tx store.Tx) error { _, err := tx.DeleteOldWorkers(h.ctx, 0); return err })
		var lost []store.Job
		h.do(func(tx store.Tx) (err error) { lost, err = tx.RescueLostJobs(h.ctx); return err })
		if len(lost) != 1 || lost[0].ID != id || lost[0].FailedReason != "worker was deleted" || lost[0].StartedBy != (ulid.ULID{}) {
			h.t.Fatalf("rescued %v", lost)
		}
	}},
	{"LostJobRetries", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		h.declareDead(w)
		next := h.retry(id, time.Second)
		if h.job(id).NextAttemptID != next.ID || next.Attempt != 1 || next.Status != store.Scheduled {
			h.t.Fatalf("retry of a lost job: %s", store.FormatJob(next))
		}
	}},
}

var promoteCases = []testCase{
	{"DueRowsBecomeAvailable", func(h *harness) {
		w := h.worker()
		due := h.insert("q", h.clock.Now().Add(time.Minute))
		edge := h.insert("r", h.clock.Now().Add(2*time.Minute))
		later := h.insert("q", h.clock.Now().Add(2*time.Minute+time.Microsecond))
		h.clock.Advance(2 * time.Minute)
		var n int
		h.do(func(tx store.Tx) (err error) { n, err = tx.PromoteScheduledJobs(h.ctx); return err })
		if n != 2 {
			h.t.Fatalf("promoted %d, want 2", n)
		}
		for id, want := range map[ulid.ULID]store.Status{due: store.Available, edge: store.Available, later: store.Scheduled} {
			if got := h.job(id).Status; got != want {
				h.t.Errorf("job %s is %s, want %s", id, got, want)
			}
		}
		if got := h.reserve(w, 5, "q", "r"); !slices.Equal(ids(got), []ulid.ULID{due, edge}) {
			h.t.Fatalf("reserved %v after promotion", ids(got))
		}
		h.do(func(tx store.Tx) (err error) { n, err = tx.PromoteScheduledJobs(h.ctx); return err })
		if n != 0 {
			h.t.Fatalf("second promotion = %d", n)
		}
	}},
	{"CancelledScheduledRowStaysCancelled", func(h *harness) {
		id := h.insert("q", h.clock.Now().Add(time.Second))
		h.do(func(tx store.Tx) error { _, err := tx.CancelJob(h.ctx, id); return err })
		h.clock.Advance(time.Minute)
		var n int
		h.do(func(tx store.Tx) (err error) { n, err = tx.PromoteScheduledJobs(h.ctx); return err })
		if n != 0 || h.job(id).Status != store.Cancelled {
			h.t.Fatalf("promoted %d; row %s", n, store.FormatJob(h.job(id)))
		}
	}},
}
