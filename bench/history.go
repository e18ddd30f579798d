package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/worker"
)

// vacuumModes are the values of history's -vacuum.
var vacuumModes = []string{"off", "table", "defaults", "manual", "dead"}

// historyFlags configure the history runs: does a job cost more as
// finished rows pile up, and does a retention sweep hold workers up.
type historyFlags struct {
	commonFlags
	jobs, window, inflight int
	vacuum                 []string
	sweep, sweepJobs       int
	batch, backlog         int
}

func parseHistory(args []string, stderr io.Writer) (historyFlags, error) {
	var f historyFlags
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.IntVar(&f.jobs, "jobs", 1_000_000, "jobs processed in the growing-history run (0 skips it)")
	fs.IntVar(&f.window, "window", 100_000, "jobs per window: each is enqueued, processed and measured on its own")
	fs.IntVar(&f.inflight, "inflight", 100, "jobs in flight in the worker")
	vacuum := fs.String("vacuum", "off,table", "comma-separated vacuum modes, one growing-history run each: off (the run vacuums nothing: the server's autovacuum, printed first, and the migrations' per-table settings decide); table (ALTER TABLE ... SET (autovacuum_enabled = on) on the schema's tables, which does nothing while the server's autovacuum is off); defaults (resets the jobs table's autovacuum settings to the server's, to compare with off while the server's autovacuum is on); manual (VACUUM (ANALYZE) of jobs after each window, what autovacuum would do); dead (VACUUM of jobs whenever the statistics show more than 10,000 dead rows, checked every 100 ms, what a leader duty could do)")
	fs.IntVar(&f.sweep, "sweep", 1_000_000, "old finished rows the retention sweep deletes (0 skips the sweep runs)")
	fs.IntVar(&f.sweepJobs, "sweep-jobs", 50_000, "jobs two workers process in the sweep run and in the run without a sweep")
	fs.IntVar(&f.batch, "batch", 5_000, "jobs per bulk-enqueue call")
	fs.IntVar(&f.backlog, "backlog", 10_000, "a window enqueues another batch whenever fewer jobs than this wait, so that the backlog, not the history, stays small")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	for m := range strings.SplitSeq(*vacuum, ",") {
		if !slices.Contains(vacuumModes, m) {
			return f, fmt.Errorf("-vacuum: %q is not one of %s", m, strings.Join(vacuumModes, ", "))
		}
		f.vacuum = append(f.vacuum, m)
	}
	if f.jobs < 0 || f.window < 1 || f.inflight < 1 || f.sweep < 0 || f.sweepJobs < 1 || f.batch < 1 || f.backlog < 1 {
		return f, fmt.Errorf("-jobs and -sweep must not be negative; -window, -inflight, -sweep-jobs, -batch and -backlog must be positive")
	}
	return f, f.validate()
}

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseHistory(args, stderr)
	if err != nil {
		return err
	}
	started := time.Now()
	if err := printServer(ctx, stdout, f.url); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tickwork, one worker, %d in flight, job retention %v (the default)\n", f.inflight, worker.DefaultConfig().JobRetention)
	for _, mode := range f.vacuum {
		if f.jobs == 0 {
			break
		}
		if err := growingHistory(ctx, stdout, f, mode); err != nil {
			return fmt.Errorf("growing history, vacuum %s: %w", mode, err)
		}
	}
	if f.sweep > 0 {
		if err := retentionSweep(ctx, stdout, f); err != nil {
			return fmt.Errorf("retention sweep: %w", err)
		}
	}
	fmt.Fprintf(stdout, "\ntotal time %v\n", time.Since(started).Round(time.Second))
	return nil
}

// growingHistory processes f.jobs jobs in windows of f.window on one
// worker that keeps running, so that every window finds the finished rows
// of all the ones before it, and prints each window's rate.
func growingHistory(ctx context.Context, out io.Writer, f historyFlags, mode string) error {
	schema := f.prefix + "history"
	s, err := freshTickwork(ctx, f.url, schema)
	if err != nil {
		return err
	}
	defer s.Close(context.WithoutCancel(ctx))
	if sql := modeSettings(mode, s.tables); sql != "" {
		if _, err := s.st.Pool().Exec(ctx, sql); err != nil {
			return fmt.Errorf("vacuum mode %s: %w", mode, err)
		}
	}
	fmt.Fprintf(out, "\n%d jobs in windows of %d (enqueued %d at a time, fewer than %d waiting), vacuum %s\n", f.jobs, f.window, f.batch, f.backlog, mode)
	var ran atomic.Int64
	w, err := worker.New(s.st, worker.Options{Config: throughputConfig(f.inflight), Rand: clockrng.NewRand(7), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	if err := worker.Handle(w, "noop", func(context.Context, worker.Job[struct{}]) error { ran.Add(1); return nil }); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	vacuumed := s.vacuumIn(runCtx, mode, schema)
	var rates []float64
	for i := 0; i*f.window < f.jobs && ctx.Err() == nil; i++ {
		n := min(f.window, f.jobs-i*f.window)
		sp, finished, err := s.window(ctx, n, f.batch, f.backlog, func() int { return int(ran.Load()) - i*f.window })
		if err != nil {
			cancel()
			<-done
			return err
		}
		rates = append(rates, sp.rate())
		fmt.Fprintf(out, "window %2d: %d finished rows before it, %d jobs in %v = %.0f jobs/s; oldest open snapshot on the server: %v\n",
			i+1, finished, sp.n, sp.last.Sub(sp.first).Round(time.Millisecond), sp.rate(), s.oldestSnapshot(ctx))
		if mode == "manual" {
			t0 := time.Now()
			if _, err := s.st.Pool().Exec(ctx, "VACUUM (ANALYZE) "+s.tables+".jobs"); err != nil {
				return err
			}
			fmt.Fprintf(out, "           VACUUM (ANALYZE) jobs took %v\n", time.Since(t0).Round(time.Millisecond))
		}
	}
	cancel()
	if v := <-vacuumed; mode == "dead" {
		if v.err != nil {
			return fmt.Errorf("vacuum on dead rows: %w", v.err)
		}
		fmt.Fprintf(out, "jobs vacuumed %d times on more than %d dead rows\n", v.n, deadVacuumThreshold)
	}
	if err := <-done; err != nil {
		return err
	}
	if len(rates) > 1 && rates[0] > 0 {
		fmt.Fprintf(out, "vacuum %s: first window %.0f jobs/s, last %.0f jobs/s: last/first = %.2f\n", mode, rates[0], rates[len(rates)-1], rates[len(rates)-1]/rates[0])
	}
	return ctx.Err()
}

// modeSettings is the SQL that prepares the schema's tables for a vacuum
// mode, empty when the mode keeps the migrations' settings.
func modeSettings(mode, tables string) string {
	switch mode {
	case "table":
		return "ALTER TABLE " + tables + ".jobs SET (autovacuum_enabled = on); ALTER TABLE " + tables + ".workers SET (autovacuum_enabled = on)"
	case "defaults":
		// Undoes the queue autovacuum settings of migration 0006, to
		// measure what they change against the server's defaults.
		return "ALTER TABLE " + tables + ".jobs RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_vacuum_cost_delay)"
	}
	return ""
}

// window enqueues n jobs, a batch whenever fewer than backlog wait, waits
// until the worker ran them (ran counts this window's) and nothing is
// running, and reads their span from the database: the jobs that started
// after the window began. finished is how many finished rows the table
// held before.
func (s *tickworkSystem) window(ctx context.Context, n, batch, backlog int, ran func() int) (sp span, finished int, err error) {
	var mark time.Time
	q := "SELECT clock_timestamp(), (SELECT count(*) FROM " + s.tables + ".jobs WHERE status = 'completed')"
	if err := s.st.Pool().QueryRow(ctx, q).Scan(&mark, &finished); err != nil {
		return span{}, 0, err
	}
	for inserted := 0; inserted < n || ran() < n || s.running(ctx) != 0; {
		if ctx.Err() != nil {
			return span{}, 0, ctx.Err()
		}
		if inserted < n && inserted-ran() < backlog {
			k := min(batch, n-inserted)
			if err := s.Insert(ctx, k, k); err != nil {
				return span{}, 0, err
			}
			inserted += k
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
	sp, err = readSpan(ctx, s.st.Pool(), "SELECT count(*), min(started_at), max(completed_at) FROM "+s.tables+".jobs WHERE status = 'completed' AND started_at >= '"+mark.Format(time.RFC3339Nano)+"'")
	return sp, finished, err
}

// running counts running jobs (through the partial index on them); -1
// when it cannot, so that the caller keeps waiting.
func (s *tickworkSystem) running(ctx context.Context) int {
	var n int
	if err := s.st.Pool().QueryRow(ctx, "SELECT count(*) FROM "+s.tables+".jobs WHERE status = 'running'").Scan(&n); err != nil {
		return -1
	}
	return n
}

// oldestSnapshot is the age of the oldest transaction on the server that
// holds back the rows VACUUM may remove (any session's, not only this
// run's): while it stays open, dead rows and their index entries stay.
func (s *tickworkSystem) oldestSnapshot(ctx context.Context) time.Duration {
	var age time.Duration
	q := `SELECT coalesce(max(now() - xact_start), '0') FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid()`
	if err := s.st.Pool().QueryRow(ctx, q).Scan(&age); err != nil {
		return -1
	}
	return age.Round(time.Second)
}
