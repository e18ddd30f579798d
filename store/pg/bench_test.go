package pg_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// benchJobs returns n small jobs on one queue with ids from rnd.
func benchJobs(rnd *clockrng.Rand, n int) []store.NewJob {
	now := time.Now()
	jobs := make([]store.NewJob, n)
	for i := range jobs {
		jobs[i] = store.NewJob{
			ID:      clockrng.NewULID(now, rnd),
			Queue:   "bench",
			Payload: []byte(`{"user":` + strconv.Itoa(i) + `,"action":"send-email"}`),
		}
	}
	return jobs
}

func reportJobsPerSecond(b *testing.B, jobs int) {
	b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(jobs), "ns/job")
}

// BenchmarkBulkEnqueue inserts batches of jobs with InsertJobs (COPY) in
// one transaction each, with the database's clock, as a bulk load does.
func BenchmarkBulkEnqueue(b *testing.B) {
	for _, batch := range []int{1000, 50000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := pgtest.OpenDurable(b, pg.Options{})
			rnd := clockrng.NewRand(1)
			ctx := context.Background()
			fill(b, s, rnd, batch) // warm up: prepared statements, COPY's column types, caches
			total := 0
			for b.Loop() {
				b.StopTimer()
				jobs := benchJobs(rnd, batch)
				b.StartTimer()
				if err := s.InTx(ctx, func(tx store.Tx) error { _, err := tx.InsertJobs(ctx, jobs); return err }); err != nil {
					b.Fatal(err)
				}
				total += batch
			}
			reportJobsPerSecond(b, total)
		})
	}
}

// reserveCompleteJobs is how many jobs one iteration of
// BenchmarkReserveComplete takes through the job path, so that even
// -benchtime 1x (make bench) measures many ticks.
const reserveCompleteJobs = 2000

// BenchmarkReserveComplete runs the job path of a worker tick: one
// transaction completes the previous batch and reserves the next, batch
// jobs at a time, until the queue is empty. It reports the cost per job,
// for the store.JobPass the worker sends (one round trip) and for the same
// work as separate Tx calls.
func BenchmarkReserveComplete(b *testing.B) {
	for _, c := range []struct {
		path  string
		tick  tickFunc
		batch int
	}{{"pass", passTick, 5}, {"pass", passTick, 100}, {"tx", txTick, 100}} {
		b.Run(fmt.Sprintf("path=%s/batch=%d", c.path, c.batch), func(b *testing.B) {
			batch, tick := c.batch, c.tick
			s := pgtest.OpenDurable(b, pg.Options{})
			worker := registerBenchWorker(b, s)
			rnd := clockrng.NewRand(2)
			fill(b, s, rnd, 2*batch) // warm up: prepared statements, caches
			tick(b, s, worker, tick(b, s, worker, nil, 2*batch), batch)
			total := 0
			for b.Loop() {
				b.StopTimer()
				fill(b, s, rnd, reserveCompleteJobs)
				b.StartTimer()
				var running []ulid.ULID
				for done := 0; done < reserveCompleteJobs; done += len(running) {
					running = tick(b, s, worker, running, batch)
				}
				tick(b, s, worker, running, batch) // complete the last batch
				total += reserveCompleteJobs
			}
			reportJobsPerSecond(b, total)
		})
	}
}

// fill enqueues n jobs in one transaction.
func fill(b *testing.B, s *pg.Store, rnd *clockrng.Rand, n int) {
	ctx := context.Background()
	jobs := benchJobs(rnd, n)
	if err := s.InTx(ctx, func(tx store.Tx) error { _, err := tx.InsertJobs(ctx, jobs); return err }); err != nil {
		b.Fatal(err)
	}
}

// tickFunc completes running and reserves the next batch in one
// transaction, returning the reserved ids.
type tickFunc func(b *testing.B, s *pg.Store, worker ulid.ULID, running []ulid.ULID, batch int) []ulid.ULID

// passTick is the worker's way: one store.JobPass.
func passTick(b *testing.B, s *pg.Store, worker ulid.ULID, running []ulid.ULID, batch int) []ulid.ULID {
	res, err := store.RunJobPass(context.Background(), s, store.JobPass{
		Worker: worker, Complete: []store.Completion{{Worker: worker, IDs: running}}, Queues: []string{"bench"}, Limit: batch})
	if err != nil || res.Dead || len(res.Fenced) > 0 {
		b.Fatalf("job pass: dead %v, fenced %v, %v", res.Dead, res.Fenced, err)
	}
	return jobIDs(res.Reserved)
}

// txTick does the same work with Tx calls.
func txTick(b *testing.B, s *pg.Store, worker ulid.ULID, running []ulid.ULID, batch int) []ulid.ULID {
	ctx := context.Background()
	var next []ulid.ULID
	err := s.InTx(ctx, func(tx store.Tx) error {
		if fenced, err := tx.CompleteJobs(ctx, store.Completion{Worker: worker, IDs: running}); err != nil || len(fenced) > 0 {
			return fmt.Errorf("complete: fenced %v, %w", fenced, err)
		}
		jobs, err := tx.Reserve(ctx, worker, []string{"bench"}, batch)
		next = jobIDs(jobs)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return next
}
