package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestWroteTellsAReadFromAWrite: a transaction that only reads reports
// that it wrote nothing, one that inserted a row that it wrote (the
// simulator's DiffBackend reads the rows back only after such a one).
func TestWroteTellsAReadFromAWrite(t *testing.T) {
	ctx := t.Context()
	s := pgtest.Open(t, nil)
	wrote := func(fn func(store.Tx) error) bool {
		t.Helper()
		var got bool
		err := s.InTx(ctx, func(tx store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			w, ok := tx.(interface {
				Wrote(context.Context) (bool, error)
			})
			if !ok {
				t.Fatalf("store/pg's transaction %T has no Wrote", tx)
			}
			var err error
			got, err = w.Wrote(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	read := func(tx store.Tx) error { _, err := tx.ListJobs(ctx, store.JobFilter{}); return err }
	insert := func(tx store.Tx) error {
		_, err := tx.InsertJobs(ctx, oddJobs(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), 1))
		return err
	}
	if wrote(read) {
		t.Error("a transaction that only listed jobs says it wrote")
	}
	if !wrote(insert) {
		t.Error("a transaction that inserted a job says it wrote nothing")
	}
	if wrote(read) {
		t.Error("a reading transaction after a write says it wrote")
	}
}
