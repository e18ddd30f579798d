package pg_test

import (
	"errors"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
)

// newULID returns a fresh id; tests may use the global ULID source.
func newULID(t *testing.T) ulid.ULID {
	t.Helper()
	return ulid.Make()
}

// insert inserts jobs in a transaction of their own.
func insert(t *testing.T, s *pg.Store, jobs ...store.NewJob) {
	t.Helper()
	if err := s.InTx(t.Context(), func(tx store.Tx) error { _, err := tx.InsertJobs(t.Context(), jobs); return err }); err != nil {
		t.Fatal(err)
	}
}

// getJob reads one row; ok is false if it does not exist.
func getJob(t *testing.T, s *pg.Store, id ulid.ULID) (store.Job, bool) {
	t.Helper()
	var j store.Job
	err := s.InTx(t.Context(), func(tx store.Tx) (err error) { j, err = tx.GetJob(t.Context(), id); return err })
	switch {
	case err == nil:
		return j, true
	case errors.Is(err, store.ErrNotFound):
		return store.Job{}, false
	}
	t.Fatal(err)
	return store.Job{}, false
}
