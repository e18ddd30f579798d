package storetest

import (
	"context"
	"errors"
	"time"

	"github.com/tickwork/tickwork/store"
)

// The vacuum duty's store side (store.Vacuums, store.Vacuumer).

// lastVacuum reads the vacuums row; found is false when none is recorded.
func (h *harness) lastVacuum() (v store.Vacuum, found bool) {
	h.t.Helper()
	err := h.tx(func(tx store.Tx) (err error) { v, err = tx.LastVacuum(h.ctx); return err })
	if errors.Is(err, store.ErrNotFound) {
		return store.Vacuum{}, false
	}
	if err != nil {
		h.t.Fatalf("last vacuum: %v", err)
	}
	return v, true
}

func (h *harness) recordVacuum(dead int64) error {
	return h.tx(func(tx store.Tx) error { return tx.RecordVacuum(h.ctx, dead) })
}

func (h *harness) deadRows() int64 {
	h.t.Helper()
	var n int64
	h.do(func(tx store.Tx) (err error) { n, err = tx.DeadJobRows(h.ctx); return err })
	return n
}

func (h *harness) vacuumer() store.Vacuumer {
	h.t.Helper()
	v, ok := h.st.(store.Vacuumer)
	if !ok {
		h.t.Fatalf("store %T cannot vacuum (store.Vacuumer)", h.st)
	}
	return v
}

var vacuumCases = []testCase{
	{"NoneRecordedAtFirst", func(h *harness) {
		if v, found := h.lastVacuum(); found {
			h.t.Fatalf("a new store recorded a vacuum: %+v", v)
		}
		if s := h.state(); s.Vacuum != nil {
			h.t.Fatalf("a new store's state holds a vacuum:\n%s", s)
		}
	}},
	{"RecordKeepsTheLastAtStoreTime", func(h *harness) {
		first := h.now()
		if err := h.recordVacuum(12); err != nil {
			h.t.Fatal(err)
		}
		h.clock.Advance(90*time.Second + 1500*time.Nanosecond)
		if err := h.recordVacuum(0); err != nil {
			h.t.Fatal(err)
		}
		want := store.Vacuum{StartedAt: h.now(), DeadRows: 0}
		if v, found := h.lastVacuum(); !found || v != want || v.StartedAt.Equal(first) {
			h.t.Fatalf("last vacuum %+v (found %v), want %+v: the second record replaces the first, at the store's time", v, found, want)
		}
		if s := h.state(); s.Vacuum == nil || *s.Vacuum != want {
			h.t.Fatalf("state holds vacuum %v, want %+v", s.Vacuum, want)
		}
	}},
	{"NegativeDeadRowsRefused", func(h *harness) {
		h.wantErr(h.recordVacuum(-1), store.ErrInvalid, "record a vacuum of -1 dead rows")
		if v, found := h.lastVacuum(); found {
			h.t.Fatalf("a refused record left %+v", v)
		}
	}},
	{"RolledBackRecordUndone", func(h *harness) {
		if err := h.recordVacuum(3); err != nil {
			h.t.Fatal(err)
		}
		want, _ := h.lastVacuum()
		h.clock.Advance(time.Minute)
		errStop := errors.New("stop")
		err := h.tx(func(tx store.Tx) error {
			if err := tx.RecordVacuum(h.ctx, 9); err != nil {
				return err
			}
			return errStop
		})
		h.wantErr(err, errStop, "rolled-back record")
		if v, _ := h.lastVacuum(); v != want {
			h.t.Fatalf("after a rolled-back record the last vacuum is %+v, want %+v", v, want)
		}
	}},
	// How soon the count shows writes differs (store/pg reads lagging
	// statistics; its own tests wait for them, store/mem's check the exact
	// model), so the suite checks what holds at once on every store.
	{"VacuumKeepsEveryRow", func(h *harness) {
		w := h.worker()
		for range 3 {
			h.insert("q", time.Time{})
		}
		got := h.reserve(w, 3, "q")
		h.complete(w, ids(got)[:2]...)
		before := h.state()
		if n := h.deadRows(); n < 0 {
			h.t.Fatalf("the store counts %d dead rows", n)
		}
		if err := h.vacuumer().VacuumJobs(h.ctx); err != nil {
			h.t.Fatalf("vacuum jobs: %v", err)
		}
		if after := h.state(); !after.Equal(before) {
			h.t.Fatalf("the vacuum changed the rows:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		if n := h.deadRows(); n < 0 {
			h.t.Fatalf("after a vacuum the store counts %d dead rows", n)
		}
	}},
	{"VacuumHonoursItsContext", func(h *harness) {
		ctx, cancel := context.WithCancel(h.ctx)
		cancel()
		if err := h.vacuumer().VacuumJobs(ctx); !errors.Is(err, context.Canceled) {
			h.t.Fatalf("vacuum with a cancelled context: %v, want context.Canceled", err)
		}
	}},
}
