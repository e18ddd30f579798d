package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

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
	autovacuum             string
}

func parseHistory(args []string, stderr io.Writer) (historyFlags, error) {
	var f historyFlags
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.IntVar(&f.jobs, "jobs", 1_000_000, "jobs processed in the growing-history run (0 skips it)")
	fs.IntVar(&f.window, "window", 100_000, "jobs per window: each is enqueued, processed and measured on its own")
	fs.IntVar(&f.inflight, "inflight", 100, "jobs in flight in the worker")
	vacuum := fs.String("vacuum", "off,table", "comma-separated vacuum modes, one growing-history run each: off (the run vacuums nothing: the server's autovacuum, printed first, and the migrations' per-table settings decide); table (ALTER TABLE ... SET (autovacuum_enabled = on) on the schema's tables, which does nothing while the server's autovacuum is off); defaults (resets the jobs table's autovacuum settings to the server's, to compare with off while the server's autovacuum is on); manual (VACUUM (ANALYZE) of jobs after each window, what autovacuum would do); dead (the worker's vacuum duty: its leader vacuums jobs once the statistics show 10,000 dead rows, at most once a second; worker run -vacuum-dead-rows 10000 -vacuum-interval 1s)")
	fs.IntVar(&f.sweep, "sweep", 1_000_000, "old finished rows the retention sweep deletes (0 skips the sweep runs)")
	fs.IntVar(&f.sweepJobs, "sweep-jobs", 50_000, "jobs two workers process in the sweep run and in the run without a sweep")
	fs.StringVar(&f.autovacuum, "autovacuum", "", "on or off: set the server's autovacuum for the run (ALTER SYSTEM and pg_reload_conf(), needs a superuser) and put it back as it was when the run ends, on an error or an interrupt too; it changes the whole server (default: leave it)")
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

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	f, err := parseHistory(args, stderr)
	if err != nil {
		return err
	}
	if f.autovacuum != "" && f.autovacuum != "on" && f.autovacuum != "off" {
		return fmt.Errorf("-autovacuum %q: want on or off", f.autovacuum)
	}
	started := time.Now()
	if f.autovacuum != "" {
		restore, setErr := autovacuumForRun(ctx, stdout, f)
		if restore != nil { // err is the run's result: the restore's failure joins it
			defer func() { err = errors.Join(err, restore(context.WithoutCancel(ctx))) }()
		}
		if setErr != nil {
			return setErr
		}
	}
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
	o := worker.Options{Rand: clockrng.NewRand(7), Logger: slog.New(slog.DiscardHandler)}
	cfg, vacuums := withVacuumDuty(mode, throughputConfig(f.inflight), &o)
	o.Config = cfg
	w, err := worker.New(s.st, o)
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
	if err := <-done; err != nil {
		return err
	}
	if mode == "dead" {
		fmt.Fprintf(out, "the leader's vacuum duty vacuumed jobs %d times (%d failed or cut short by the end of the run) on at least %d dead rows, at most once per %v\n",
			vacuums.ran.Load(), vacuums.failed.Load(), deadVacuumThreshold, deadVacuumInterval)
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

// autovacuumForRun sets the server's autovacuum as -autovacuum asks, on a
// connection of its own that the returned restore also uses and closes.
func autovacuumForRun(ctx context.Context, out io.Writer, f historyFlags) (func(context.Context) error, error) {
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		return nil, fmt.Errorf("-autovacuum: %w", err)
	}
	restore, err := setAutovacuum(ctx, conn, f.autovacuum, waitSetting(f.url))
	if restore == nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	fmt.Fprintf(out, "autovacuum set to %s for this run (ALTER SYSTEM); it is put back when the run ends\n", f.autovacuum)
	return func(ctx context.Context) error {
		defer conn.Close(ctx)
		if err := restore(ctx); err != nil {
			return err
		}
		fmt.Fprintln(out, "autovacuum put back as the run found it")
		return nil
	}, err
}
