package pg_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
// test waits for: they lag by up to a second or so), and VacuumJobs runs a
// VACUUM outside any transaction, which does not raise it.
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
	vacuums := func() (n int64) {
		t.Helper()
		q := "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = $1::regclass"
		if err := s.Pool().QueryRow(ctx, q, pgx.Identifier{s.Schema(), "jobs"}.Sanitize()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ran := vacuums()
	if err := s.VacuumJobs(ctx); err != nil {
		t.Fatalf("vacuum: %v", err)
	}
	// How many rows it removes depends on the other sessions of the
	// server (an open snapshot anywhere in the database keeps them), so
	// what is certain is that it ran, and left no more than there were.
	if n := vacuums(); n != ran+1 {
		t.Fatalf("the statistics count %d manual vacuums of jobs after VacuumJobs, %d before", n, ran)
	}
	if after := deadRows(t, s); after > before {
		t.Fatalf("VACUUM left %d dead job rows of %d", after, before)
	}
}
