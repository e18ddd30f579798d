package storetest

import (
	"context"
	"errors"
	"time"

	"github.com/tickwork/tickwork/store"
)

// errAbort is what the rollback checks return from their transaction.
var errAbort = errors.New("storetest: abort on purpose")

var txCases = []testCase{
	{"ErrorRollsBackEveryWrite", func(h *harness) {
		w, other := h.worker(), h.worker()
		run := h.running(w, "q")
		avail := h.insert("q", time.Time{})
		sched := h.insert("q", h.now().Add(time.Hour))
		h.do(func(tx store.Tx) error { return tx.EnsureSchedules(h.ctx, []string{"s"}) })
		h.do(func(tx store.Tx) error { _, err := tx.TryAcquireLease(h.ctx, w, 5*time.Second); return err })
		before := h.state()
		h.clock.Advance(time.Hour)
		err := h.tx(func(tx store.Tx) error {
			steps := []func() error{
				func() error { return tx.RegisterWorker(h.ctx, h.newID()) },
				func() error { return tx.Heartbeat(h.ctx, other) },
				func() error {
					_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: h.newID(), Queue: "q", Payload: payload(2)}})
					return err
				},
				func() error { _, err := tx.Reserve(h.ctx, other, []string{"q"}, 10); return err },
				func() error { return tx.FailJob(h.ctx, w, run, "boom") },
				func() error { _, err := tx.ScheduleRetry(h.ctx, run, h.newID(), 0); return err },
				func() error { _, err := tx.CancelJob(h.ctx, sched); return err },
				func() error { _, err := tx.PromoteScheduledJobs(h.ctx); return err },
				func() error { return tx.AdvanceSchedule(h.ctx, "s", h.now(), avail) },
				func() error { _, err := tx.ExpireLease(h.ctx); return err },
				func() error { _, err := tx.TryAcquireLease(h.ctx, other, time.Minute); return err },
				func() error { return tx.ShutdownWorker(h.ctx, w) },
				func() error { _, err := tx.DeleteOldJobs(h.ctx, 0, 10); return err },
				func() error { _, err := tx.DeleteOldWorkers(h.ctx, -time.Hour); return err },
			}
			for i, step := range steps {
				if err := step(); err != nil {
					h.t.Errorf("step %d inside the transaction: %v", i, err)
				}
			}
			return errAbort
		})
		if !errors.Is(err, errAbort) {
			h.t.Fatalf("InTx returned %v, want the callback's error", err)
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("rolled-back transaction changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		// The indexes must have been restored too: the same jobs reserve.
		got := h.reserve(other, 10, "q")
		if len(got) != 1 || got[0].ID != avail {
			h.t.Fatalf("reserve after rollback = %v, want [%s]", ids(got), avail)
		}
	}},
	{"PanicRollsBackAndRepanics", func(h *harness) {
		w := h.worker()
		id := h.insert("q", time.Time{})
		before := h.state()
		func() {
			defer func() {
				if r := recover(); r != errAbort {
					h.t.Errorf("recovered %v, want the callback's panic value", r)
				}
			}()
			_ = h.tx(func(tx store.Tx) error {
				if _, err := tx.Reserve(h.ctx, w, []string{"q"}, 1); err != nil {
					return err
				}
				panic(errAbort)
			})
		}()
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("panicking transaction changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		if got := h.reserve(w, 1, "q"); len(got) != 1 || got[0].ID != id {
			h.t.Fatalf("reserve after rollback = %v, want [%s]", ids(got), id)
		}
	}},
	{"RolledBackEndDoesNotAgeTheRow", func(h *harness) {
		// A row that ended in a rolled-back transaction and ends for real
		// later must be aged from the later end.
		w := h.worker()
		id := h.running(w, "q")
		err := h.tx(func(tx store.Tx) error {
			if err := tx.FailJob(h.ctx, w, id, "undone"); err != nil {
				return err
			}
			return errAbort
		})
		h.wantErr(err, errAbort, "aborted FailJob")
		h.clock.Advance(time.Hour)
		h.fail(w, id, "real")
		h.clock.Advance(time.Minute)
		if n := h.deleteOldJobs(30 * time.Minute); n != 0 {
			h.t.Fatalf("deleted %d rows that ended a minute ago", n)
		}
	}},
	{"TxUsedAfterInTxFails", func(h *harness) {
		var kept store.Tx
		h.do(func(tx store.Tx) error { kept = tx; return nil })
		before := h.state()
		if err := kept.RegisterWorker(h.ctx, h.newID()); err == nil {
			h.t.Fatal("RegisterWorker on a finished transaction succeeded")
		}
		if _, err := kept.ListWorkers(h.ctx); err == nil {
			h.t.Fatal("ListWorkers on a finished transaction succeeded")
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("finished transaction changed the store:\n%s", after)
		}
	}},
	{"CancelledContextDoesNotRun", func(h *harness) {
		ctx, cancel := context.WithCancel(h.ctx)
		cancel()
		err := h.st.InTx(ctx, func(tx store.Tx) error { return tx.RegisterWorker(ctx, h.newID()) })
		if err == nil {
			h.t.Fatal("InTx with a cancelled context succeeded")
		}
		if s := h.state(); len(s.Workers) != 0 {
			h.t.Fatalf("InTx with a cancelled context wrote:\n%s", s)
		}
	}},
}
