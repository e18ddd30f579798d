package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

var workerCases = []testCase{
	{"RegisterSetsTimes", func(h *harness) {
		w := h.worker()
		s := h.state()
		want := store.Worker{ID: w, RegisteredAt: h.now(), LastSeenAt: h.now()}
		if len(s.Workers) != 1 || s.Workers[0] != want {
			h.t.Fatalf("workers = %+v, want [%+v]", s.Workers, want)
		}
	}},
	{"RegisterDuplicateConflicts", func(h *harness) {
		w := h.worker()
		h.clock.Advance(time.Second)
		err := h.tx(func(tx store.Tx) error { return tx.RegisterWorker(h.ctx, w) })
		h.wantErr(err, store.ErrConflict, "second RegisterWorker")
		if s := h.state(); len(s.Workers) != 1 || !s.Workers[0].RegisteredAt.Equal(Epoch.Truncate(time.Microsecond)) {
			h.t.Fatalf("workers after duplicate = %+v", s.Workers)
		}
	}},
	{"HeartbeatMovesLastSeen", func(h *harness) {
		w := h.worker()
		h.clock.Advance(90 * time.Second)
		h.do(func(tx store.Tx) error { return tx.Heartbeat(h.ctx, w) })
		got := h.state().Workers[0]
		if !got.LastSeenAt.Equal(h.now()) || !got.RegisteredAt.Equal(h.now().Add(-90*time.Second)) {
			h.t.Fatalf("after heartbeat: %+v", got)
		}
	}},
	{"HeartbeatOfUnknownOrShutDownWorker", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { return tx.Heartbeat(h.ctx, h.newID()) })
		h.wantErr(err, store.ErrNotFound, "heartbeat of unknown worker")
		w := h.worker()
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		before := h.state()
		h.clock.Advance(time.Second)
		err = h.tx(func(tx store.Tx) error { return tx.Heartbeat(h.ctx, w) })
		h.wantErr(err, store.ErrNotFound, "heartbeat of shut-down worker")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("failed heartbeat changed the row: %s", after)
		}
	}},
	{"ShutdownIsIdempotent", func(h *harness) {
		w := h.worker()
		h.clock.Advance(time.Second)
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		first := h.now()
		h.clock.Advance(time.Second)
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		if got := h.state().Workers[0].ShutdownAt; !got.Equal(first) {
			h.t.Fatalf("shutdown_at = %s after a second shutdown, want the first %s", ts(got), ts(first))
		}
		err := h.tx(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, h.newID()) })
		h.wantErr(err, store.ErrNotFound, "shutdown of unknown worker")
	}},
	{"ShutdownDeadWorkersBoundaryAndOrder", func(h *harness) {
		old2 := h.worker()
		old1 := h.worker()
		h.clock.Advance(time.Minute)
		edge := h.worker()
		gone := h.worker()
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, gone) })
		h.clock.Advance(2 * time.Minute)
		fresh := h.worker()
		var dead []ulid.ULID
		h.do(func(tx store.Tx) (err error) {
			dead, err = tx.ShutdownDeadWorkers(h.ctx, 2*time.Minute)
			return err
		})
		want := []ulid.ULID{old2, old1}
		slices.SortFunc(want, ulid.ULID.Compare)
		if !slices.Equal(dead, want) {
			h.t.Fatalf("dead = %v, want %v (edge %s seen exactly at the threshold stays, fresh %s)", dead, want, edge, fresh)
		}
		for _, w := range h.state().Workers {
			isDead := w.ID == old1 || w.ID == old2
			if isDead && !w.ShutdownAt.Equal(h.now()) || (w.ID == edge || w.ID == fresh) && !w.ShutdownAt.IsZero() {
				h.t.Errorf("worker %s shutdown_at = %s", w.ID, ts(w.ShutdownAt))
			}
		}
	}},
	{"ListWorkersInIDOrder", func(h *harness) {
		var want []ulid.ULID
		for range 5 {
			want = append(want, h.worker())
		}
		var got []ulid.ULID
		for _, w := range h.state().Workers {
			got = append(got, w.ID)
		}
		if !slices.Equal(got, want) {
			h.t.Fatalf("ListWorkers ids = %v, want %v", got, want)
		}
	}},
	{"DeleteOldWorkersNullsStartedByOfRunningJobs", func(h *harness) {
		w, keep := h.worker(), h.worker()
		run := h.running(w, "q")
		done := h.running(w, "q")
		h.complete(w, done)
		mine := h.running(keep, "q")
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		h.clock.Advance(time.Hour)
		var n int
		h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldWorkers(h.ctx, time.Hour); return err })
		if n != 0 {
			h.t.Fatalf("deleted %d workers shut down exactly age ago, want 0", n)
		}
		h.clock.Advance(time.Microsecond)
		h.do(func(tx store.Tx) (err error) { n, err = tx.DeleteOldWorkers(h.ctx, time.Hour); return err })
		if n != 1 {
			h.t.Fatalf("deleted %d workers, want 1", n)
		}
		s := h.state()
		if len(s.Workers) != 1 || s.Workers[0].ID != keep {
			h.t.Fatalf("workers left = %+v, want only the live %s", s.Workers, keep)
		}
		if j := h.job(run); j.StartedBy != (ulid.ULID{}) || j.StartedAt.IsZero() {
			h.t.Errorf("running job of the deleted worker kept its worker: %s", store.FormatJob(j))
		}
		if j := h.job(done); j.StartedBy != w {
			h.t.Errorf("finished job of the deleted worker lost the worker that ran it: %s", store.FormatJob(j))
		}
		if h.job(mine).StartedBy != keep {
			h.t.Errorf("job of the live worker lost its worker: %s", store.FormatJob(h.job(mine)))
		}
	}},
	{"NullStartedByIsNoWorkersJob", func(h *harness) {
		w := h.worker()
		orphan := h.running(w, "q")
		h.do(func(tx store.Tx) error { return tx.ShutdownWorker(h.ctx, w) })
		h.clock.Advance(2 * time.Hour)
		h.do(func(tx store.Tx) error { _, err := tx.DeleteOldWorkers(h.ctx, time.Hour); return err })
		var zero ulid.ULID
		var running []store.Job
		var fenced []ulid.ULID
		h.do(func(tx store.Tx) (err error) { running, err = tx.RunningJobs(h.ctx, zero); return err })
		h.do(func(tx store.Tx) (err error) {
			fenced, err = tx.CompleteJobs(h.ctx, store.Completion{Worker: zero, IDs: []ulid.ULID{orphan}})
			return err
		})
		if len(running) != 0 || len(fenced) != 1 {
			h.t.Fatalf("a row whose worker was deleted counted as the zero worker's: running %v, fenced %v", running, fenced)
		}
		err := h.st.InTx(h.ctx, func(tx store.Tx) error { return tx.FailJob(h.ctx, zero, orphan, "as nobody") })
		h.wantErr(err, store.ErrFenced, "FailJob as the zero worker")
		err = h.st.InTx(h.ctx, func(tx store.Tx) error {
			_, err := tx.SnoozeJob(h.ctx, zero, orphan, h.newID(), time.Second)
			return err
		})
		h.wantErr(err, store.ErrFenced, "SnoozeJob as the zero worker")
		if j := h.job(orphan); j.Status != store.Running {
			h.t.Fatalf("the orphaned row changed: %s", store.FormatJob(j))
		}
	}},
}
