package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The history run's -finished: one measuring window at each of several
// levels of finished rows, the rows inserted with SQL (seeder) before
// each window instead of processed, so that a history of ten million
// rows is reached in minutes. The window itself is the growing-history
// run's: jobs enqueued and processed by one worker that keeps running.

// parseLevels reads -finished: comma-separated counts of finished rows,
// not negative, each at least the one before (rows are only added).
func parseLevels(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var levels []int
	for field := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-finished %q: %q is not a count of rows (0 or more)", s, field)
		}
		if len(levels) > 0 && n < levels[len(levels)-1] {
			return nil, fmt.Errorf("-finished %q: %d is below %d: levels must not decrease, rows are only added", s, n, levels[len(levels)-1])
		}
		levels = append(levels, n)
	}
	return levels, nil
}

// levelFigures are one window's figures at one level of finished rows.
type levelFigures struct {
	finished   int // completed rows before the window
	rate       float64
	server     float64 // server processor time, µs per job
	serverSeen bool
	backends   float64 // this run's backends' processor time, µs per job
	seen       bool
}

// seededHistory measures one window at each level of f.finished in vacuum
// mode, and prints each level's cost beside the first level's.
func seededHistory(ctx context.Context, out io.Writer, f historyFlags, mode string) error {
	header := fmt.Sprintf("finished rows inserted with SQL up to %s, then a window of %d jobs (enqueued %d at a time, fewer than %d waiting), vacuum %s",
		levelList(f.finished), f.window, f.batch, f.backlog, mode)
	err := historyRun(ctx, out, f, "finished", mode, header, func(s *tickworkSystem, hw *historyWorker) error {
		sd := newSeeder(s.st.Pool(), s.tables, time.Now().Add(-time.Minute))
		var first levelFigures
		for i, level := range f.finished {
			fig, err := measureLevel(ctx, out, s, hw, sd, f, level, i*f.window)
			if err != nil {
				return fmt.Errorf("level %d finished rows: %w", level, err)
			}
			if i == 0 {
				first = fig
			}
			printLevel(out, fig, first)
			if err := s.afterWindow(ctx, out, mode); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ctx.Err()
}

// measureLevel inserts finished rows until the table holds level of them
// (the windows before left ranBefore of their own), says what it did and
// what the statistics know, and measures one window.
func measureLevel(ctx context.Context, out io.Writer, s *tickworkSystem, hw *historyWorker, sd *seeder, f historyFlags, level, ranBefore int) (levelFigures, error) {
	if add := level - ranBefore - int(sd.next); add > 0 {
		t0 := time.Now()
		if err := sd.add(ctx, add); err != nil {
			return levelFigures{}, err
		}
		d := time.Since(t0)
		fmt.Fprintf(out, "inserted %d finished rows in %v (%.0f rows/s, %d per committed statement); no ANALYZE or VACUUM by hand\n",
			add, d.Round(time.Millisecond), float64(add)/d.Seconds(), seedChunk)
		// The insert wrote more WAL than max_wal_size: the checkpoint it
		// asked for falls here, not in the window.
		t0 = time.Now()
		if err := checkpoint(ctx, f.url); err != nil {
			return levelFigures{}, err
		}
		fmt.Fprintf(out, "  CHECKPOINT took %v\n", time.Since(t0).Round(time.Millisecond))
	}
	finished, err := s.completed(ctx)
	if err != nil {
		return levelFigures{}, err
	}
	fmt.Fprintf(out, "  statistics before the window: %s\n", s.tableStats(ctx))
	sp, used, err := s.window(ctx, f.window, f.batch, f.backlog, func() int { return int(hw.ran.Load()) - ranBefore })
	if err != nil {
		return levelFigures{}, err
	}
	fig := levelFigures{finished: finished, rate: sp.rate(), serverSeen: used.ServerSeen, seen: used.BackendsSeen,
		server: perJob(used.Server, sp.n), backends: perJob(used.Backends, sp.n)}
	fmt.Fprintf(out, "  window: %d jobs in %v = %.0f jobs/s%s; oldest open snapshot on the server: %v\n",
		sp.n, sp.last.Sub(sp.first).Round(time.Millisecond), sp.rate(), used.report(sp.n), s.oldestSnapshot(ctx))
	return fig, nil
}

// printLevel prints a level's figures and their ratio to the first
// level's: flat is a ratio near 1.
func printLevel(out io.Writer, fig, first levelFigures) {
	line := fmt.Sprintf("finished %10d: %6.0f jobs/s (x%.2f of the first level)", fig.finished, fig.rate, ratio(fig.rate, first.rate))
	if fig.serverSeen && first.serverSeen {
		line += fmt.Sprintf(", server %6.1f µs/job (x%.2f)", fig.server, ratio(fig.server, first.server))
	}
	if fig.seen && first.seen {
		line += fmt.Sprintf(", this run's backends %6.1f µs/job (x%.2f)", fig.backends, ratio(fig.backends, first.backends))
	}
	fmt.Fprintln(out, line)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func levelList(levels []int) string {
	s := make([]string, len(levels))
	for i, n := range levels {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// tableStats is what the server's statistics say of jobs: the planner
// reads reltuples, and autovacuum decides on n_dead_tup and the last
// vacuum and analyze. "unknown" if they cannot be read.
func (s *tickworkSystem) tableStats(ctx context.Context) string {
	var reltuples float64
	var live, dead int64
	var vacuumed, analyzed string
	q := `SELECT c.reltuples, st.n_live_tup, st.n_dead_tup,
	             coalesce(to_char(greatest(st.last_vacuum, st.last_autovacuum), 'HH24:MI:SS'), 'never'),
	             coalesce(to_char(greatest(st.last_analyze, st.last_autoanalyze), 'HH24:MI:SS'), 'never')
	      FROM pg_class AS c JOIN pg_stat_user_tables AS st ON st.relid = c.oid
	      WHERE c.oid = ($1 || '.jobs')::regclass`
	if err := s.st.Pool().QueryRow(ctx, q, s.tables).Scan(&reltuples, &live, &dead, &vacuumed, &analyzed); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return fmt.Sprintf("reltuples %.0f, n_live_tup %d, n_dead_tup %d, last vacuum %s, last analyze %s", reltuples, live, dead, vacuumed, analyzed)
}
