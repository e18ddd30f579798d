package pg_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/internal/proccpu"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// BenchmarkCompletionCost measures the server's processor time per job of
// a completion statement, for a store whose queues all keep history: the
// statement before queues without history and before release_children
// (before: its release of waiting jobs inline), today's with its deleting
// part (full) and the job pass's without it (keeping). Each
// iteration completes completionBatch fresh running rows completionRounds
// times with each statement, alternating them on one connection set as
// the store sets its completions (generic plans, index scans only), and
// reads the backend's processor time from /proc. It reports each
// statement's median µs a job and full's and keeping's ratio to before.
func BenchmarkCompletionCost(b *testing.B) {
	s := pgtest.OpenDurable(b, pg.Options{})
	conn, err := s.Pool().Acquire(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	execOn(b, conn, `SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_bitmapscan = off; SET jit = off`)
	execOn(b, conn, `INSERT INTO `+schema+`.workers (id, registered_at, last_seen_at) VALUES (`+liveWorker+`, now(), now())`)
	stmts := []string{pg.CompleteBeforeHistorySQL(s), pg.CompleteSQL(s), pg.CompleteKeepingSQL(s)}
	cpu := make([][]time.Duration, len(stmts))
	for b.Loop() {
		for i, sql := range stmts {
			cpu[i] = append(cpu[i], completionRound(b, conn, schema, sql))
		}
	}
	med := make([]float64, len(stmts))
	for i := range stmts {
		slices.Sort(cpu[i])
		med[i] = float64(cpu[i][len(cpu[i])/2].Nanoseconds()) / 1e3
	}
	b.ReportMetric(med[0], "before-µs/job")
	b.ReportMetric(med[1], "full-µs/job")
	b.ReportMetric(med[2], "keeping-µs/job")
	b.ReportMetric(med[1]/med[0], "full/before")
	b.ReportMetric(med[2]/med[0], "keeping/before")
}

const (
	completionBatch  = 5   // jobs a statement completes: a job pass's usual few
	completionRounds = 200 // statements per round and kind
)

// completionRound inserts completionRounds batches of running rows and
// completes them a batch at a time with sql, returning the backend's
// processor time per job.
func completionRound(b *testing.B, conn *pgxpool.Conn, schema, sql string) time.Duration {
	ctx := b.Context()
	b.StopTimer()
	var all []string
	if err := conn.QueryRow(ctx, `WITH r AS (INSERT INTO `+schema+`.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by)
		SELECT gen_random_uuid(), 'q', '{}', '{}', 'running', 0, now(), now(), now(), `+liveWorker+` FROM generate_series(1, $1) RETURNING id::text)
		SELECT array_agg(id) FROM r`, completionBatch*completionRounds).Scan(&all); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	pid := conn.Conn().PgConn().PID()
	cpu0 := backendCPU(b, pid)
	for batch := range slices.Chunk(all, completionBatch) {
		rows, err := conn.Query(ctx, sql, nil, batch, liveWorkerID)
		if err != nil {
			b.Fatal(err)
		}
		rows.Close()
		if rows.Err() != nil || rows.CommandTag().RowsAffected() != completionBatch {
			b.Fatalf("complete %d jobs: %v, %d rows", completionBatch, rows.Err(), rows.CommandTag().RowsAffected())
		}
	}
	return (backendCPU(b, pid) - cpu0) / time.Duration(len(all))
}

// backendCPU is the processor time backend pid has run so far; it needs
// the server on this machine, not in a container.
func backendCPU(b *testing.B, pid uint32) time.Duration {
	used, ok := proccpu.Process(pid)
	if !ok {
		b.Fatalf("read backend %d's processor time: the server's processes are not visible here", pid)
	}
	return used
}

var liveWorkerID = strings.Trim(liveWorker, "'")

func execOn(b *testing.B, conn *pgxpool.Conn, sql string) {
	b.Helper()
	if _, err := conn.Exec(b.Context(), sql); err != nil {
		b.Fatalf("%v\n%s", err, sql)
	}
}
