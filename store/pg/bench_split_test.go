package pg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/proccpu"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// splitBatch is the jobs in flight of the worker benchmark's figure: each
// job pass completes the previous 100 and reserves the next 100.
const splitBatch = 100

// BenchmarkTickSplit splits the job pass of a worker with 100 jobs in
// flight into what it waits for:
//
//   - roundtrip: one SELECT 1, the floor of any pass;
//   - pass/durable: the pass as production runs it (the server's
//     synchronous_commit); pass/one: the same with one job a pass, on a
//     table of its own of at most 110 rows and few dead index entries
//     (another pass/durable's table would make each pass read past the
//     entries of every job reserved before), whose server time is the
//     pass's cost apart from its jobs: its statements and its commit;
//     pass/async: pass/durable with synchronous_commit off, so the
//     difference is the commit's wait for the WAL flush;
//     pass/limited: pass/durable with the queue limited to ten times the
//     jobs in flight, so the difference is the limit's work;
//   - server: the execution time PostgreSQL reports (EXPLAIN ANALYZE) for
//     reserving and for completing 100 jobs, per job, and the time it
//     spent planning the two, per pass; server/limited: the same with the
//     queue limited as in pass/limited, the reservation's time including
//     its limit lock's statement, and counting the running jobs (there is
//     no completion before it in the transaction to reuse the places of).
//
// What is left of pass/async after the round trip, the server's execution
// and planning is the pass's smaller statements, protocol, the client's
// encoding and decoding, and waiting for a CPU.
func BenchmarkTickSplit(b *testing.B) {
	durable := pgtest.OpenDurable(b, pg.Options{})
	b.Run("roundtrip", func(b *testing.B) {
		ctx := context.Background()
		var one int
		for b.Loop() {
			if err := durable.Pool().QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pass/durable", func(b *testing.B) { benchPasses(b, durable, splitBatch) })
	b.Run("pass/one", func(b *testing.B) { benchPasses(b, pgtest.OpenDurable(b, pg.Options{}), 1) })
	b.Run("pass/async", func(b *testing.B) { benchPasses(b, pgtest.OpenWith(b, pg.Options{}), splitBatch) })
	b.Run("pass/limited", func(b *testing.B) { benchPasses(b, openLimited(b), splitBatch) })
	b.Run("server", func(b *testing.B) { benchServerTime(b, durable, false) })
	b.Run("server/limited", func(b *testing.B) { benchServerTime(b, openLimited(b), true) })
}

// openLimited opens a store with durable commits whose bench queue is
// limited to ten times the jobs in flight, a limit that never binds.
func openLimited(b *testing.B) *pg.Store {
	limited := pgtest.OpenDurable(b, pg.Options{})
	ctx := context.Background()
	if err := limited.InTx(ctx, func(tx store.Tx) error { return tx.SetQueueLimit(ctx, "bench", 10*splitBatch) }); err != nil {
		b.Fatal(err)
	}
	return limited
}

// benchPasses runs job passes of jobs jobs on a table of at most 110
// times as many rows, refilling the queue outside the timer, and reports
// the time and the server's processor time per job.
func benchPasses(b *testing.B, s *pg.Store, jobs int) {
	worker := registerBenchWorker(b, s)
	rnd := clockrng.NewRand(3)
	fill(b, s, rnd, 10*jobs)
	running := passTick(b, s, worker, nil, jobs) // warm up
	passes := 0
	cpuBefore, cpuSeen := proccpu.Server()
	for b.Loop() {
		if len(running) < jobs {
			b.StopTimer()
			fill(b, s, rnd, 100*jobs)
			b.StartTimer()
		}
		running = passTick(b, s, worker, running, jobs)
		passes++
	}
	cpuAfter, _ := proccpu.Server()
	perJob := float64(passes * jobs)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/perJob, "µs/job")
	if cpuSeen { // the refills' share too, a small one
		b.ReportMetric(float64((cpuAfter-cpuBefore).Microseconds())/perJob, "server-cpu-µs/job")
	}
}

// benchServerTime explains, analyzed, the reservation and the completion
// of splitBatch jobs, as a pass does them, and reports the execution times
// PostgreSQL measured, per job.
func benchServerTime(b *testing.B, s *pg.Store, limited bool) {
	worker := registerBenchWorker(b, s)
	rnd := clockrng.NewRand(4)
	var reserve, complete, planning time.Duration
	n := 0
	for b.Loop() {
		if n%100 == 0 {
			b.StopTimer()
			fill(b, s, rnd, 100*splitBatch)
			b.StartTimer()
		}
		r, c := explainPass(b, s, worker, limited)
		reserve, complete, planning, n = reserve+r.execution, complete+c.execution, planning+r.planning+c.planning, n+1
	}
	b.ReportMetric(float64(reserve.Microseconds())/float64(n)/splitBatch, "reserve-µs/job")
	b.ReportMetric(float64(complete.Microseconds())/float64(n)/splitBatch, "complete-µs/job")
	b.ReportMetric(float64(planning.Microseconds())/float64(n), "planning-µs/pass")
}

// benchReserveArgs are the arguments of a reservation of splitBatch jobs of
// the queue bench for worker, read from the queue's start (no hint).
func benchReserveArgs(worker ulid.ULID) []any {
	return []any{nil, idText(worker), []string{"bench"}, splitBatch, []int16{-1}, []string{"-infinity"}, []string{"00000000-0000-0000-0000-000000000000"}}
}

// explainPass reserves and completes splitBatch jobs of worker under
// EXPLAIN ANALYZE in one transaction, and returns the times of each
// statement. (Rolling back instead would leave a dead version of the
// same rows at every call, which the next calls would read.)
func explainPass(b *testing.B, s *pg.Store, worker ulid.ULID, limited bool) (reserve, complete serverTime) {
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx) // when b.Fatal ends the benchmark
	if _, err := tx.Exec(ctx, pg.IndexScansOnlySQL); err != nil {
		b.Fatal(err)
	}
	if limited {
		// No completions before it: the reservation counts the running jobs
		// under the limit lock, a pass's costliest way.
		claim := explainAnalyze(b, tx, pg.LimitLockSQL(s), 1, []string{"bench"}, splitBatch)
		reserve = explainAnalyze(b, tx, pg.ReserveSQL(s), benchReserveArgs(worker)...)
		reserve.planning += claim.planning
		reserve.execution += claim.execution
	} else { // the reservation an unlimited queue gets (reserve_plain.go)
		reserve = explainAnalyze(b, tx, pg.PlainReserveSQL(s), benchReserveArgs(worker)...)
	}
	var ids []string
	rows, err := tx.Query(ctx, "SELECT id::text FROM "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()+
		" WHERE status = 'running' AND started_by = $1", idText(worker))
	if err == nil {
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || len(ids) != splitBatch {
		b.Fatalf("reserved %d jobs, want %d: %v", len(ids), splitBatch, err)
	}
	complete = explainAnalyze(b, tx, pg.CompleteSQL(s), nil, ids, idText(worker))
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	return reserve, complete
}

// serverTime is what EXPLAIN ANALYZE reports for one statement.
type serverTime struct{ planning, execution time.Duration }

// explainAnalyze runs query with args under EXPLAIN ANALYZE and returns
// the planning and execution times PostgreSQL reports.
func explainAnalyze(b *testing.B, tx pgx.Tx, query string, args ...any) serverTime {
	b.Helper()
	var out []struct {
		Planning  float64 `json:"Planning Time"` // milliseconds
		Execution float64 `json:"Execution Time"`
	}
	if err := tx.QueryRow(context.Background(), "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) "+query, args...).Scan(&out); err != nil || len(out) != 1 {
		b.Fatalf("explain analyze: %v", err)
	}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	return serverTime{planning: ms(out[0].Planning), execution: ms(out[0].Execution)}
}

func idText(id ulid.ULID) string { return fmt.Sprintf("%x", id[:]) }

func registerBenchWorker(b *testing.B, s *pg.Store) ulid.ULID {
	ctx := context.Background()
	worker := ulid.Make()
	if err := s.InTx(ctx, func(tx store.Tx) error { return tx.RegisterWorker(ctx, worker) }); err != nil {
		b.Fatal(err)
	}
	return worker
}
