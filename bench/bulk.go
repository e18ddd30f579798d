package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// bulkFlags configure the bulk run: does a bulk action over a million
// rows (worker.Client.Bulk, `worker jobs retry -queue ...`) hold the
// workers up.
type bulkFlags struct {
	commonFlags
	rows, inflight, rate, batchSize int
	action                          string
	baseline                        time.Duration
}

// bulkSeeds is, per action, the status of the rows seeded for it.
var bulkSeeds = map[string]store.Status{"retry": store.Failed, "cancel": store.Available, "delete": store.Failed}

// bulkQueue holds the seeded rows: no worker serves it, so that only the
// bulk action touches them.
const bulkQueue = "stale"

func parseBulk(args []string, stderr io.Writer) (bulkFlags, error) {
	var f bulkFlags
	fs := flag.NewFlagSet("bulk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.IntVar(&f.rows, "rows", 1_000_000, "rows the bulk action acts on, seeded in queue "+bulkQueue)
	fs.StringVar(&f.action, "action", "retry", "retry (failed rows), cancel (available rows) or delete (failed rows)")
	fs.IntVar(&f.batchSize, "batch-size", worker.DefaultBulkBatch, "the bulk action's batch size")
	fs.IntVar(&f.inflight, "inflight", 100, "jobs in flight in each of the two workers")
	fs.IntVar(&f.rate, "rate", 2_000, "no-op jobs enqueued per second while the workers run, in both runs")
	fs.DurationVar(&f.baseline, "baseline", 30*time.Second, "how long the run without a bulk action lasts")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if _, ok := bulkSeeds[f.action]; !ok {
		return f, fmt.Errorf("-action %q: want retry, cancel or delete", f.action)
	}
	if f.rows < 1 || f.inflight < 1 || f.rate < 10 || f.baseline <= 0 || f.batchSize < 1 || f.batchSize > worker.MaxBulkBatch {
		return f, fmt.Errorf("-rows, -inflight, -baseline must be positive, -rate at least 10, -batch-size 1 to %d", worker.MaxBulkBatch)
	}
	return f, f.validate()
}

// runBulk seeds f.rows rows, then runs two workers on a steady load of
// no-op jobs three times: without a bulk action for f.baseline, while one
// runs over the seeded rows, and without one again; it prints their tick
// durations.
func runBulk(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	f, err := parseBulk(args, stderr)
	if err != nil {
		return err
	}
	if err := printServer(ctx, stdout, f.url); err != nil {
		return err
	}
	s, err := freshTickwork(ctx, f.url, f.prefix+"bulk")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close(context.WithoutCancel(ctx))) }() // a schema left behind says why
	t0 := time.Now()
	if err := s.seedBulk(ctx, f.rows, bulkSeeds[f.action]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seeded %d %s rows in queue %s in %v\n", f.rows, bulkSeeds[f.action], bulkQueue, time.Since(t0).Round(time.Millisecond))
	fmt.Fprintf(stdout, "%d workers x %d in flight, %d no-op jobs/s enqueued; tick durations (job.worker.tick_duration)\n", sweepWorkers, f.inflight, f.rate)
	var runs [3]tickStats // before, during, after the bulk action
	for i := range runs {
		if runs[i], err = bulkRun(ctx, stdout, s, f, i == 1); err != nil {
			return err
		}
	}
	// The table grows during the action (its retries, the jobs run), so
	// the run after it says what the growth alone costs.
	for i, when := range []string{"before", "after"} {
		without := runs[2*i]
		fmt.Fprintf(stdout, "during/without %s: p50 x%.2f, p99 x%.2f, max x%.2f\n", when, runs[1].quantile(0.5)/without.quantile(0.5),
			runs[1].quantile(0.99)/without.quantile(0.99), runs[1].max/without.max)
	}
	return nil
}

// bulkRun runs the workers and the feeder for f.baseline, or, with bulk,
// for as long as the bulk action over the seeded rows takes, and returns
// the workers' ticks.
func bulkRun(ctx context.Context, out io.Writer, s *tickworkSystem, f bulkFlags, bulk bool) (tickStats, error) {
	ws, err := startWorkers(ctx, s, sweepWorkers, f.inflight, nil)
	if err != nil {
		return tickStats{}, err
	}
	feedCtx, stopFeed := context.WithCancel(ctx)
	var feed sync.WaitGroup
	var feedErr error
	feed.Go(func() { feedErr = s.feed(feedCtx, f.rate) })
	label := fmt.Sprintf("without a bulk action, %v", f.baseline)
	if bulk {
		t0 := time.Now()
		req := worker.BulkRequest{Action: worker.BulkAction(f.action), BatchSize: f.batchSize,
			Filter: worker.BulkFilter{Queue: bulkQueue, Status: bulkSeeds[f.action]}}
		res, err := s.client.Bulk(ctx, req)
		took := time.Since(t0)
		if err != nil {
			stopFeed()
			feed.Wait()
			ws.stop()
			return tickStats{}, err
		}
		label = fmt.Sprintf("during bulk %s of %d rows (batch size %d): %d done, %d refused, %d batches in %v = %.0f rows/s",
			f.action, res.Matched, f.batchSize, res.Done, res.Refused, res.Batches, took.Round(time.Millisecond), float64(res.Done)/took.Seconds())
	} else {
		select {
		case <-time.After(f.baseline):
		case <-ctx.Done():
		}
	}
	stopFeed()
	feed.Wait()
	if err := ws.stop(); err != nil {
		return tickStats{}, err
	}
	if feedErr != nil && ctx.Err() == nil {
		return tickStats{}, feedErr
	}
	fmt.Fprintf(out, "%s (%d jobs run)\n", label, ws.ran.Load())
	return ws.report(ctx, out)
}

// feed enqueues rate no-op jobs a second, a tenth every 100 ms, until ctx
// is done.
func (s *tickworkSystem) feed(ctx context.Context, rate int) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := s.Insert(ctx, rate/10, rate/10); err != nil && ctx.Err() == nil {
			return err
		}
	}
}

// seedBulk inserts n rows of queue bulkQueue in status, created an hour
// ago. Their ids are ULIDs of that time, as Client.Bulk expects: it leaves
// alone ids past the newest one when it started.
func (s *tickworkSystem) seedBulk(ctx context.Context, n int, status store.Status) error {
	failedAt := "NULL"
	if status == store.Failed {
		failedAt = "t"
	}
	_, err := s.st.Pool().Exec(ctx, `
		INSERT INTO `+s.tables+`.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, failed_at, failed_reason)
		SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || substr(md5(g::text), 1, 20))::uuid,
			'`+bulkQueue+`', '{}', '{}', $2::text, 0, t, t, `+failedAt+`, CASE WHEN $2::text = 'failed' THEN 'seeded' END
		FROM (SELECT g, now() - interval '1 hour' + g * interval '1 ms' AS t FROM generate_series(1, $1::int) AS g) AS old`, n, string(status))
	if err != nil {
		return fmt.Errorf("seed %d %s rows: %w", n, status, err)
	}
	_, err = s.st.Pool().Exec(ctx, "ANALYZE "+s.tables+".jobs")
	if err != nil {
		return fmt.Errorf("analyze jobs after the seed: %w", err)
	}
	return nil
}
