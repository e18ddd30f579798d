package pg_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestCompletionCost measures a completion statement's server time per
// job for a store whose queues all keep history: the statement before
// queues without history (before), today's with its deleting part (full)
// and the job pass's without it (keeping). It is a measurement, not a
// check: it runs only with TICKWORK_COMPLETION_COST set (rounds per
// statement). Each round completes fresh running rows on one connection,
// alternating the statements, and reads the backend's CPU from /proc;
// then EXPLAIN ANALYZE times planning and execution apart.
func TestCompletionCost(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("TICKWORK_COMPLETION_COST"))
	if rounds == 0 {
		t.Skip("a measurement: set TICKWORK_COMPLETION_COST to the rounds per statement")
	}
	s := pgtest.OpenDurable(t, pg.Options{})
	conn, err := s.Pool().Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	// As the store runs completions: indexScansOnlySQL, for the session.
	execOn(t, conn, `SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_bitmapscan = off; SET jit = off`)
	execOn(t, conn, `INSERT INTO `+schema+`.workers (id, registered_at, last_seen_at) VALUES (`+liveWorker+`, now(), now())`)
	stmts := []namedSQL{{"before", pg.CompleteBeforeHistorySQL(s)}, {"full", pg.CompleteSQL(s)}, {"keeping", pg.CompleteKeepingSQL(s)}}
	for _, batch := range []int{5, 100} {
		perJob := make([][]costs, len(stmts))
		for r := range len(stmts) * rounds {
			i := r % len(stmts)
			perJob[i] = append(perJob[i], completionRound(t, conn, schema, stmts[i].sql, batch, 2000/batch))
		}
		for i, st := range stmts {
			t.Logf("batch %d, %s: median per job %v (rounds: %v)", batch, st.name, median(perJob[i]), perJob[i])
		}
	}
	explainCompletions(t, conn, schema, stmts)
}

// namedSQL is a statement measured and the name it is reported under.
type namedSQL struct{ name, sql string }

// costs is one round's wall and backend CPU time per job.
type costs struct{ wall, cpu time.Duration }

func (c costs) String() string { return fmt.Sprintf("wall %v cpu %v", c.wall, c.cpu) }

// median is the median wall time and the median CPU time of cs.
func median(cs []costs) costs {
	walls := make([]time.Duration, len(cs))
	cpus := make([]time.Duration, len(cs))
	for i, c := range cs {
		walls[i], cpus[i] = c.wall, c.cpu
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return costs{walls[len(cs)/2], cpus[len(cs)/2]}
}

// completionRound inserts n batches of running rows and completes them a
// batch at a time with sql, returning the cost per job.
func completionRound(t *testing.T, conn *pgxpool.Conn, schema, sql string, batch, n int) costs {
	ctx := t.Context()
	var all []string
	if err := conn.QueryRow(ctx, `WITH r AS (INSERT INTO `+schema+`.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by)
		SELECT gen_random_uuid(), 'q', '{}', '{}', 'running', 0, now(), now(), now(), `+liveWorker+` FROM generate_series(1, $1) RETURNING id::text)
		SELECT array_agg(id) FROM r`, batch*n).Scan(&all); err != nil {
		t.Fatal(err)
	}
	pid := conn.Conn().PgConn().PID()
	cpu0, start := backendCPU(t, pid), time.Now()
	for b := range slices.Chunk(all, batch) {
		rows, err := conn.Query(ctx, sql, nil, b, liveWorkerID)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if rows.Err() != nil || rows.CommandTag().RowsAffected() != int64(batch) {
			t.Fatalf("complete %d jobs: %v, %d rows", batch, rows.Err(), rows.CommandTag().RowsAffected())
		}
	}
	jobs := time.Duration(batch * n)
	return costs{time.Since(start) / jobs, (backendCPU(t, pid) - cpu0) / jobs}
}

var liveWorkerID = strings.Trim(liveWorker, "'")

// backendCPU is the CPU time backend pid has run, from its schedstat (ns).
func backendCPU(t *testing.T, pid uint32) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		t.Fatalf("read the backend's CPU time: %v", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatalf("read the backend's CPU time from %q: %v", b, err)
	}
	return time.Duration(ns)
}

// explainCompletions logs, for batches of 5, the plan cache's choice and
// the planning and execution times EXPLAIN ANALYZE reports for each of
// stmts prepared on conn, alternating them: the median, and the least,
// the figure a busy machine disturbs least.
func explainCompletions(t *testing.T, conn *pgxpool.Conn, schema string, stmts []namedSQL) {
	plan, exe := make([][]float64, len(stmts)), make([][]float64, len(stmts))
	for _, st := range stmts {
		execOn(t, conn, `PREPARE c_`+st.name+` AS `+st.sql)
		defer execOn(t, conn, `DEALLOCATE c_`+st.name)
	}
	for range 101 {
		for i, st := range stmts {
			p, e := explainCompletion(t, conn, schema, st.name)
			plan[i], exe[i] = append(plan[i], p), append(exe[i], e)
		}
	}
	for i, st := range stmts {
		var generic, custom int64
		if err := conn.QueryRow(t.Context(), `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1`, "c_"+st.name).Scan(&generic, &custom); err != nil {
			t.Fatal(err)
		}
		slices.Sort(plan[i])
		slices.Sort(exe[i])
		t.Logf("%s, 5 jobs: %d generic plans, %d custom; planning median %.3f ms (least %.3f), execution median %.3f ms (least %.3f)",
			st.name, generic, custom, plan[i][50], plan[i][0], exe[i][50], exe[i][0])
	}
}

// explainCompletion completes 5 fresh running rows with the statement
// prepared as c_name and returns its planning and execution times (ms).
func explainCompletion(t *testing.T, conn *pgxpool.Conn, schema, name string) (planning, execution float64) {
	ctx := t.Context()
	var ids string
	if err := conn.QueryRow(ctx, `WITH r AS (INSERT INTO `+schema+`.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by)
		SELECT gen_random_uuid(), 'q', '{}', '{}', 'running', 0, now(), now(), now(), `+liveWorker+` FROM generate_series(1, 5) RETURNING id::text)
		SELECT array_agg(id)::text FROM r`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) EXECUTE c_`+name+`(NULL, '`+ids+`', `+liveWorker+`)`).Scan(&out); err != nil {
		t.Fatal(err)
	}
	return out[0]["Planning Time"].(float64), out[0]["Execution Time"].(float64)
}

func execOn(t *testing.T, conn *pgxpool.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}
