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
	finished               []int // levels of -finished
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
	finished := fs.String("finished", "", "comma-separated levels of finished rows, e.g. 0,1000000,10000000: for each vacuum mode, a run that inserts completed rows with SQL (as tickwork leaves them, in committed chunks) up to each level, then measures one -window of jobs (default: no such run)")
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
	var err error
	if f.finished, err = parseLevels(*finished); err != nil {
		return f, err
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
	for _, mode := range f.vacuum {
		if len(f.finished) > 0 {
			if err := seededHistory(ctx, stdout, f, mode); err != nil {
				return fmt.Errorf("seeded history, vacuum %s: %w", mode, err)
			}
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
	header := fmt.Sprintf("%d jobs in windows of %d (enqueued %d at a time, fewer than %d waiting), vacuum %s", f.jobs, f.window, f.batch, f.backlog, mode)
	var rates []float64
	err := historyRun(ctx, out, f, "history", mode, header, func(s *tickworkSystem, hw *historyWorker) error {
		for i := 0; i*f.window < f.jobs && ctx.Err() == nil; i++ {
			n := min(f.window, f.jobs-i*f.window)
			finished, err := s.completed(ctx)
			if err != nil {
				return err
			}
			sp, used, err := s.window(ctx, n, f.batch, f.backlog, func() int { return int(hw.ran.Load()) - i*f.window })
			if err != nil {
				return err
			}
			rates = append(rates, sp.rate())
			fmt.Fprintf(out, "window %2d: %d finished rows before it, %d jobs in %v = %.0f jobs/s%s; oldest open snapshot on the server: %v\n",
				i+1, finished, sp.n, sp.last.Sub(sp.first).Round(time.Millisecond), sp.rate(), used.report(sp.n), s.oldestSnapshot(ctx))
			if err := s.afterWindow(ctx, out, mode); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(rates) > 1 && rates[0] > 0 {
		fmt.Fprintf(out, "vacuum %s: first window %.0f jobs/s, last %.0f jobs/s: last/first = %.2f\n", mode, rates[0], rates[len(rates)-1], rates[len(rates)-1]/rates[0])
	}
	return ctx.Err()
}

// historyRun runs windows on a fresh schema named f.prefix+name, set for
// vacuum mode, with the run's one worker (startHistoryWorker): it prints
// header, calls windows, stops the worker and reports its vacuum duty.
func historyRun(ctx context.Context, out io.Writer, f historyFlags, name, mode, header string, windows func(*tickworkSystem, *historyWorker) error) (err error) {
	s, err := historySchema(ctx, f, name, mode)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close(context.WithoutCancel(ctx))) }() // a schema left behind says why
	fmt.Fprintf(out, "\n%s\n", header)
	hw, err := startHistoryWorker(ctx, s, f, mode)
	if err != nil {
		return err
	}
	defer hw.stop()
	if err := windows(s, hw); err != nil {
		return err
	}
	if err := hw.stop(); err != nil {
		return err
	}
	hw.report(out, mode)
	return nil
}

// historySchema opens tickwork on a fresh schema named f.prefix+name,
// its tables set for vacuum mode.
func historySchema(ctx context.Context, f historyFlags, name, mode string) (*tickworkSystem, error) {
	schema := f.prefix + name
	s, err := freshTickwork(ctx, withAppName(f.url, sessionName(schema)), schema)
	if err != nil {
		return nil, err
	}
	if sql := modeSettings(mode, s.tables); sql != "" {
		if _, err := s.st.Pool().Exec(ctx, sql); err != nil {
			s.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("vacuum mode %s: %w", mode, err)
		}
	}
	return s, nil
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
// after the window began. used is the processor time of the window's
// work, read before the span's query, which reads the whole history.
func (s *tickworkSystem) window(ctx context.Context, n, batch, backlog int, ran func() int) (sp span, used windowCost, err error) {
	var mark time.Time
	if err := s.st.Pool().QueryRow(ctx, "SELECT clock_timestamp()").Scan(&mark); err != nil {
		return span{}, used, err
	}
	stop := meterRun(ctx, s.st.Pool(), s.st.Schema())
	for inserted := 0; inserted < n || ran() < n || s.running(ctx) != 0; {
		if ctx.Err() != nil {
			return span{}, used, ctx.Err()
		}
		if inserted < n && inserted-ran() < backlog {
			k := min(batch, n-inserted)
			if err := s.Insert(ctx, k, k); err != nil {
				return span{}, used, err
			}
			inserted += k
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
	used = stop()
	sp, err = readSpan(ctx, s.st.Pool(), "SELECT count(*), min(started_at), max(completed_at) FROM "+s.tables+".jobs WHERE status = 'completed' AND started_at >= '"+mark.Format(time.RFC3339Nano)+"'")
	return sp, used, err
}

// completed counts the completed rows: the history a window finds.
func (s *tickworkSystem) completed(ctx context.Context) (int, error) {
	var n int
	if err := s.st.Pool().QueryRow(ctx, "SELECT count(*) FROM "+s.tables+".jobs WHERE status = 'completed'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count the completed rows of %s.jobs: %w", s.tables, err)
	}
	return n, nil
}

// afterWindow vacuums jobs as the manual mode does after each window.
func (s *tickworkSystem) afterWindow(ctx context.Context, out io.Writer, mode string) error {
	if mode != "manual" {
		return nil
	}
	t0 := time.Now()
	if _, err := s.st.Pool().Exec(ctx, "VACUUM (ANALYZE) "+s.tables+".jobs"); err != nil {
		return fmt.Errorf("VACUUM (ANALYZE) %s.jobs: %w", s.tables, err)
	}
	fmt.Fprintf(out, "           VACUUM (ANALYZE) jobs took %v\n", time.Since(t0).Round(time.Millisecond))
	return nil
}

// historyWorker is the one worker of a history run, which keeps running
// from window to window so that each finds the rows of those before.
type historyWorker struct {
	ran     atomic.Int64
	vacuums *vacuumCount
	cancel  context.CancelFunc
	done    chan error
	err     error
	stopped bool
}

// startHistoryWorker starts the worker of a run in vacuum mode.
func startHistoryWorker(ctx context.Context, s *tickworkSystem, f historyFlags, mode string) (*historyWorker, error) {
	hw := &historyWorker{done: make(chan error, 1)}
	o := worker.Options{Rand: clockrng.NewRand(7), Logger: slog.New(slog.DiscardHandler)}
	o.Config, hw.vacuums = withVacuumDuty(mode, throughputConfig(f.inflight), &o)
	w, err := worker.New(s.st, o)
	if err != nil {
		return nil, err
	}
	if err := worker.Handle(w, "noop", func(context.Context, worker.Job[struct{}]) error { hw.ran.Add(1); return nil }); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	hw.cancel = cancel
	go func() { hw.done <- w.Run(runCtx) }()
	return hw, nil
}

// stop stops the worker, once, and returns what its Run returned.
func (hw *historyWorker) stop() error {
	if !hw.stopped {
		hw.stopped = true
		hw.cancel()
		hw.err = <-hw.done
	}
	return hw.err
}

// report prints what the vacuum duty did, in the mode that has one.
func (hw *historyWorker) report(out io.Writer, mode string) {
	if mode == "dead" {
		fmt.Fprintf(out, "the leader's vacuum duty vacuumed jobs %d times (%d failed or cut short by the end of the run) on at least %d dead rows, at most once per %v\n",
			hw.vacuums.ran.Load(), hw.vacuums.failed.Load(), deadVacuumThreshold, deadVacuumInterval)
	}
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
