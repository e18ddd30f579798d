package mem_test

import (
	"errors"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"go.uber.org/goleak"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func open(_ *testing.T, now func() time.Time) store.Store { return mem.New(now) }

func TestConformance(t *testing.T) { storetest.Run(t, open) }

// The in-memory store counts dead rows exactly: one per row that existed
// before a committed transaction updated or deleted it (however often),
// none for a row it inserted, none for a rolled-back transaction; a vacuum
// removes them all.
func TestDeadRowsModel(t *testing.T) {
	ctx := t.Context()
	s := mem.New(func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	dead := func() int64 {
		t.Helper()
		var n int64
		if err := s.InTx(ctx, func(tx store.Tx) (err error) { n, err = tx.DeadJobRows(ctx); return err }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	w, a, b := ulid.Make(), ulid.Make(), ulid.Make()
	tx := func(fn func(store.Tx) error) error { return s.InTx(ctx, fn) }
	if err := tx(func(tx store.Tx) error {
		_, err := tx.InsertJobs(ctx, []store.NewJob{{ID: a, Queue: "q", Payload: []byte(`1`)}, {ID: b, Queue: "q", Payload: []byte(`2`)}})
		return errors.Join(err, tx.RegisterWorker(ctx, w))
	}); err != nil {
		t.Fatal(err)
	}
	if n := dead(); n != 0 {
		t.Fatalf("inserts left %d dead rows", n)
	}
	if err := tx(func(tx store.Tx) error {
		_, err := tx.Reserve(ctx, w, []string{"q"}, 2)
		if err == nil {
			_, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{a}})
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := dead(); n != 2 {
		t.Fatalf("reserving two rows and completing one in one transaction left %d dead rows, want 2", n)
	}
	_ = tx(func(tx store.Tx) error {
		_, _ = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{b}})
		return errors.New("roll back")
	})
	if n := dead(); n != 2 {
		t.Fatalf("a rolled-back update changed the count to %d", n)
	}
	if err := s.VacuumJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if n := dead(); n != 0 {
		t.Fatalf("after a vacuum %d dead rows are left", n)
	}
}
