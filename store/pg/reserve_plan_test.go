package pg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// staleStatistics returns a store whose jobs table was analyzed while its
// 3,000 rows were available, after which a worker (returned) finished 2,500
// of them and reserved the next 100 (returned): a queue table changes
// faster than ANALYZE runs.
func staleStatistics(t *testing.T) (*pg.Store, ulid.ULID, []ulid.ULID) {
	s := pgtest.Open(t, nil)
	var jobs []store.NewJob
	for range 3000 {
		jobs = append(jobs, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	}
	insert(t, s, jobs...)
	if _, err := s.Pool().Exec(t.Context(), "ANALYZE "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	w := registerWorkers(t, s, 1)[0]
	var running []ulid.ULID
	quickly(t, s, "finish most jobs, reserve 100 more", func(ctx context.Context, tx store.Tx) error {
		got, err := tx.Reserve(ctx, w, []string{"q"}, 2500)
		if err == nil {
			_, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: jobIDs(got)})
		}
		if err == nil {
			got, err = tx.Reserve(ctx, w, []string{"q"}, 100)
			running = jobIDs(got)
		}
		return err
	})
	return s, w, running
}

// TestReservePlanIgnoresStaleStatistics requires the generic plan of the
// reserving statement, under stale statistics, to walk the available-jobs
// index, not the primary key past every finished row (which made each
// reservation cost as much as the whole table).
func TestReservePlanIgnoresStaleStatistics(t *testing.T) {
	s, _, _ := staleStatistics(t)
	for _, sql := range []string{pg.ReserveSQL(s), pg.PlainReserveSQL(s)} {
		plan := explain(t, s, "force_generic_plan", sql, "NULL, '00000000-0000-0000-0000-000000000000', '{q}', 5, "+pg.FromStartSQL)
		if !strings.Contains(plan, "jobs_available_idx") {
			t.Fatalf("the reserving statement does not use jobs_available_idx:\n%s", plan)
		}
		if !strings.Contains(plan, "Tid Scan on jobs") {
			t.Fatalf("the reserving statement does not update the rows it locked by their tuple ids:\n%s", plan)
		}
	}
}

// TestCompletePlanAvoidsRunningIndex requires the completing statement to
// find its rows through the primary key, never through jobs_running_idx:
// with stale statistics the planner otherwise ANDs a bitmap of that whole
// index, and bitmap scans never mark the entries of finished rows dead, so
// until a vacuum each completion reads an entry for every job the table
// ever ran.
func TestCompletePlanAvoidsRunningIndex(t *testing.T) {
	s, w, running := staleStatistics(t)
	ids := make([]string, len(running))
	for i, id := range running {
		ids[i] = pgtype.UUID{Bytes: id, Valid: true}.String()
	}
	args := "NULL, '{" + strings.Join(ids, ",") + "}', '" + pgtype.UUID{Bytes: w, Valid: true}.String() + "'"
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if plan := explain(t, s, mode, pg.CompleteSQL(s), args); strings.Contains(plan, "jobs_running_idx") {
			t.Errorf("with %s the completing statement reads jobs_running_idx:\n%s", mode, plan)
		}
	}
}

// explain returns the plan of query, prepared, for EXECUTE with args under
// the given plan_cache_mode.
func explain(t *testing.T, s *pg.Store, mode, query, args string) string {
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
		"SET LOCAL plan_cache_mode = " + mode,
		"PREPARE tw_stmt AS " + query,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer tx.Exec(context.Background(), "DEALLOCATE tw_stmt")
	rows, err := tx.Query(ctx, "EXPLAIN EXECUTE tw_stmt("+args+")", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
