package pg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestReservePlanIgnoresStaleStatistics analyzes the jobs table while every
// row is available, finishes most of them, and requires the generic plan of
// the reserving statement to walk the available-jobs index, not the primary
// key past every finished row (which made each reservation cost as much as
// the whole table).
func TestReservePlanIgnoresStaleStatistics(t *testing.T) {
	s := pgtest.Open(t, nil)
	ctx := t.Context()
	var jobs []store.NewJob
	for range 3000 {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	}
	insert(t, s, jobs...)
	if _, err := s.Pool().Exec(ctx, "ANALYZE "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	w := registerWorkers(t, s, 1)[0]
	quickly(t, s, "finish most jobs", func(ctx context.Context, tx store.Tx) error {
		got, err := tx.Reserve(ctx, w, []string{"q"}, 2500)
		if err != nil {
			return err
		}
		_, err = tx.CompleteJobs(ctx, w, jobIDs(got))
		return err
	})
	plan := explainGeneric(t, s)
	if !strings.Contains(plan, "jobs_available_idx") {
		t.Fatalf("the reserving statement does not use jobs_available_idx:\n%s", plan)
	}
}

func explainGeneric(t *testing.T, s *pg.Store) string {
	t.Helper()
	ctx := t.Context()
	conn, err := s.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	for _, q := range []string{
		"SET LOCAL plan_cache_mode = force_generic_plan",
		"PREPARE tw_reserve AS " + pg.ReserveSQL(s),
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer tx.Exec(context.Background(), "DEALLOCATE tw_reserve")
	rows, err := tx.Query(ctx, "EXPLAIN EXECUTE tw_reserve(NULL, '00000000-0000-0000-0000-000000000000', '{q}', 5)", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
