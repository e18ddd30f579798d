package pg_test

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// deadRows reads the store's count of dead job rows.
func deadRows(t *testing.T, s store.Store) int64 {
	t.Helper()
	var n int64
	if err := s.InTx(t.Context(), func(tx store.Tx) (err error) { n, err = tx.DeadJobRows(t.Context()); return err }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeadJobRowsFollowTheStatistics: the count the vacuum duty reads is
// PostgreSQL's n_dead_tup of jobs. It shows updated and deleted rows once
// the connections that wrote them reported their statistics (which this
// test waits for: they lag by up to a second or so), and a VACUUM through
// VacuumJobs, which runs outside any transaction, brings it down.
func TestDeadJobRowsFollowTheStatistics(t *testing.T) {
	s := pgtest.Open(t, nil)
	ctx := t.Context()
	w := newULID(t)
	var jobs []store.NewJob
	for range 50 {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	}
	insert(t, s, jobs...)
	err := s.InTx(ctx, func(tx store.Tx) error {
		if err := tx.RegisterWorker(ctx, w); err != nil {
			return err
		}
		got, err := tx.Reserve(ctx, w, []string{"q"}, 50)
		if err != nil || len(got) != 50 {
			t.Fatalf("reserved %d of 50: %v", len(got), err)
		}
		ids := make([]ulid.ULID, len(got))
		for i, j := range got {
			ids[i] = j.ID
		}
		_, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: ids})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// One dead version per row at least (the second update of a row in the
	// same transaction may be pruned at once).
	deadline := time.Now().Add(30 * time.Second)
	for deadRows(t, s) < 50 {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after updating 50 rows the statistics count %d dead job rows", deadRows(t, s))
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := deadRows(t, s)
	if err := s.VacuumJobs(ctx); err != nil {
		t.Fatalf("vacuum: %v", err)
	}
	// Another session's open snapshot may keep some rows; never all of
	// them on this schema's table, which only this test writes.
	if after := deadRows(t, s); after >= before {
		t.Fatalf("VACUUM left %d dead job rows of %d", after, before)
	}
}
