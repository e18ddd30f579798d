package worker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/proccpu"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/worker/engine"
)

// benchJobs is how many no-op jobs the throughput benchmarks process
// (100,000 unless TICKWORK_BENCH_JOBS says otherwise).
func benchJobs(b *testing.B) int {
	if s := os.Getenv("TICKWORK_BENCH_JOBS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("TICKWORK_BENCH_JOBS=%q is not a positive number", s)
		}
		return n
	}
	return 100_000
}

// benchConfig is a throughput setup: 100 jobs in flight, fetched 100 at a
// time; DefaultConfig's smaller figures stay the package's defaults.
func benchConfig() Config {
	cfg := DefaultConfig()
	cfg.Queues = []string{"noop"}
	cfg.MaxConcurrent = 100
	cfg.MaxFetch = 100
	return cfg
}

// BenchmarkThroughput processes pre-enqueued no-op jobs with one and with
// four workers at 100 concurrent jobs each and reports jobs/s measured in
// the database, from the first reservation to the last completion, and
// the processor time per job of the server and of this process (the
// workers), which move less than the rate on a shared machine. Run it
// with -benchtime 1x: each iteration is a full run.
func BenchmarkThroughput(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				run := runThroughput(b, workers, benchJobs(b), 0)
				b.ReportMetric(run.rate, "jobs/s")
				if run.serverCPU > 0 {
					b.ReportMetric(run.serverCPUPerJob(), "server-cpu-µs/job")
				}
				b.ReportMetric(float64(run.workerCPU.Microseconds())/float64(run.jobs), "worker-cpu-µs/job")
			}
		})
	}
}

// throughput is what runThroughput measured.
type throughput struct {
	jobs      int
	rate      float64       // jobs per second, in database time
	serverCPU time.Duration // the server's processor time, 0 when not visible (proccpu.Server)
	workerCPU time.Duration // this process's processor time over the same span: the workers' share
}

// serverCPUPerJob is the server's processor time per job, in µs.
func (t throughput) serverCPUPerJob() float64 {
	return float64(t.serverCPU.Microseconds()) / float64(t.jobs)
}

// runThroughput runs jobs no-op jobs on workers workers, with the noop
// queue limited to limit running jobs across them (0: no limit), and
// returns the jobs per second and the server's processor time.
func runThroughput(b *testing.B, workers, jobs, limit int) throughput {
	st := pgtest.OpenDurable(b, pg.Options{})
	enqueueNoops(b, st, jobs)
	if limit > 0 {
		if err := NewClient(st, nil).SetQueueLimit(context.Background(), "noop", limit); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpuBefore := proccpu.Read()
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, workers)
	var ran atomic.Int64 // counted in memory: polling the table would load the database
	for i := range workers {
		var ticks, results int
		var last time.Time
		obs := engine.ObserverFunc(func(e engine.Event) {
			if e.Kind == engine.EventResultRecorded {
				results++
				if !e.StoreTime.Equal(last) {
					ticks++
					last = e.StoreTime
				}
			}
		})
		defer func() { b.Logf("worker %d: %d results in %d transactions", i, results, ticks) }()
		w, err := New(st, Options{Config: benchConfig(), Rand: clockrng.NewRand(uint64(i + 1)), Logger: slog.New(slog.DiscardHandler), Observer: obs})
		if err != nil {
			b.Fatal(err)
		}
		if err := Handle(w, "noop", func(context.Context, Job[struct{}]) error { ran.Add(1); return nil }); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs <- w.Run(ctx) }()
	}
	for ran.Load() < int64(jobs) {
		time.Sleep(10 * time.Millisecond)
	}
	for completed(b, st) < jobs { // the last results are recorded by the next tick
		time.Sleep(10 * time.Millisecond)
	}
	used := proccpu.Read().Since(cpuBefore)
	b.StopTimer()
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	first, last := span(b, st)
	rate := float64(jobs) / last.Sub(first).Seconds()
	run := throughput{jobs: jobs, rate: rate, workerCPU: used.Self}
	if used.ServerSeen {
		run.serverCPU = used.Server
	}
	b.Logf("%d workers x 100 concurrent, limit %d: %d no-op jobs in %v = %.0f jobs/s (first reserve to last completion, database time); server processor time %v, this process's %v",
		workers, limit, jobs, last.Sub(first).Round(time.Millisecond), rate, run.serverCPU, run.workerCPU.Round(time.Millisecond))
	b.StartTimer()
	return run
}

func enqueueNoops(b *testing.B, st store.Store, n int) {
	c := NewClient(st, clockrng.NewRand(99))
	batch := make([]struct{}, 10_000)
	for left := n; left > 0; left -= len(batch) {
		if _, err := EnqueueMany(context.Background(), c, batch[:min(left, len(batch))], WithQueue("noop")); err != nil {
			b.Fatal(err)
		}
	}
}

func completed(b *testing.B, st *pg.Store) int {
	var n int
	q := "SELECT count(*) FROM " + pgx.Identifier{st.Schema()}.Sanitize() + ".jobs WHERE status = 'completed'"
	if err := st.Pool().QueryRow(context.Background(), q).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

func span(b *testing.B, st *pg.Store) (first, last time.Time) {
	q := "SELECT min(started_at), max(completed_at) FROM " + pgx.Identifier{st.Schema()}.Sanitize() + ".jobs"
	if err := st.Pool().QueryRow(context.Background(), q).Scan(&first, &last); err != nil {
		b.Fatal(err)
	}
	return first, last
}

// BenchmarkEnqueueToStart enqueues jobs one at a time on an idle worker
// (DefaultConfig) and reports the p50 and p99 delay from enqueue (the
// job's created_at) to start (started_at), both database time.
func BenchmarkEnqueueToStart(b *testing.B) {
	const samples = 500
	st := pgtest.OpenDurable(b, pg.Options{})
	cfg := DefaultConfig()
	w, err := New(st, Options{Config: cfg, Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	started := make(chan struct{}, 1)
	if err := Handle(w, "ping", func(context.Context, Job[struct{}]) error { started <- struct{}{}; return nil }); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	c := NewClient(st, clockrng.NewRand(2))
	b.ResetTimer()
	for range b.N {
		for range samples {
			if _, err := Enqueue(context.Background(), c, struct{}{}, WithQueue("ping")); err != nil {
				b.Fatal(err)
			}
			<-started
		}
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	var delays []time.Duration
	for _, j := range listJobs(b, st, store.JobFilter{Queue: "ping"}) {
		delays = append(delays, j.StartedAt.Sub(j.CreatedAt))
	}
	slices.Sort(delays)
	p50, p99 := delays[len(delays)/2], delays[len(delays)*99/100]
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.Logf("enqueue->start over %d single enqueues on an idle worker: p50 %v, p99 %v", len(delays), p50, p99)
}
