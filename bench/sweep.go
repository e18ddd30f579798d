package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tickwork/tickwork/worker/engine"
)

// sweepWorkers is how many workers the sweep runs use: the leader, which
// sweeps, and one that only works.
const sweepWorkers = 2

// retentionSweep runs the same job load twice, without and with f.sweep
// finished rows older than the retention period waiting to be deleted,
// and prints the workers' tick durations in each.
func retentionSweep(ctx context.Context, out io.Writer, f historyFlags) error {
	fmt.Fprintf(out, "\nretention sweep: %d workers x %d in flight process %d jobs; tick durations (job.worker.tick_duration)\n", sweepWorkers, f.inflight, f.sweepJobs)
	for _, old := range []int{0, f.sweep} {
		if err := sweepRun(ctx, out, f, old); err != nil {
			return err
		}
	}
	return nil
}

// sweepState counts the old rows the leaders deleted.
type sweepState struct {
	mu      sync.Mutex
	deleted int
}

func (st *sweepState) observe(e engine.Event) {
	if e.Kind == engine.EventJobsDeleted {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.deleted += e.Count
	}
}

func (st *sweepState) swept() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.deleted
}

func sweepRun(ctx context.Context, out io.Writer, f historyFlags, old int) (err error) {
	schema := f.prefix + "sweep"
	s, err := freshTickwork(ctx, f.url, schema)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close(context.WithoutCancel(ctx))) }() // a schema left behind says why
	if old > 0 {
		t0 := time.Now()
		if err := s.seedOld(ctx, old); err != nil {
			return err
		}
		fmt.Fprintf(out, "seeded %d finished rows 40 days old in %v\n", old, time.Since(t0).Round(time.Millisecond))
	}
	if err := s.Insert(ctx, f.sweepJobs, f.batch); err != nil {
		return err
	}
	state := &sweepState{}
	ws, err := startWorkers(ctx, s, sweepWorkers, f.inflight, engine.ObserverFunc(state.observe))
	if err != nil {
		return err
	}
	for ws.ran.Load() < int64(f.sweepJobs) || s.running(ctx) != 0 || state.swept() < old {
		if ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := ws.stop(); err != nil {
		return err
	}
	return reportSweep(ctx, out, s, state, ws, old)
}

func reportSweep(ctx context.Context, out io.Writer, s *tickworkSystem, state *sweepState, ws *workers, old int) error {
	sp, err := s.Span(ctx)
	if err != nil {
		return err
	}
	label := "without a sweep"
	if old > 0 {
		label = fmt.Sprintf("sweeping %d old rows (%d deleted, in batches, one per leader pass)", old, state.swept())
	}
	fmt.Fprintf(out, "%s: %d jobs in %v = %.0f jobs/s\n", label, sp.n, sp.last.Sub(sp.first).Round(time.Millisecond), sp.rate())
	_, err = ws.report(ctx, out)
	return err
}

// seedOld inserts n completed rows that ended 40 days ago, beyond the
// default retention of 30 days.
func (s *tickworkSystem) seedOld(ctx context.Context, n int) error {
	_, err := s.st.Pool().Exec(ctx, `
		INSERT INTO `+s.tables+`.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, completed_at)
		SELECT gen_random_uuid(), 'noop', '{}', '{}', 'completed', 0, t, t, t, t
		FROM (SELECT now() - interval '40 days' - g * interval '1 ms' AS t FROM generate_series(1, $1::int) AS g) AS old`, n)
	if err != nil {
		return fmt.Errorf("seed %d old finished rows: %w", n, err)
	}
	return nil
}
