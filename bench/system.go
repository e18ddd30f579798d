package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// system is one queue under test, on a schema of its own.
type system interface {
	Name() string
	// Insert bulk-enqueues n no-op jobs, batch at a time, each batch one
	// COPY.
	Insert(ctx context.Context, n, batch int) error
	// Work runs one worker process with inflight jobs at once until at
	// least stopAfter jobs have run, then stops it gracefully.
	Work(ctx context.Context, inflight, stopAfter int) error
	// Span reads from the database how many jobs completed and when the
	// first of them started and the last completed.
	Span(ctx context.Context) (span, error)
	// Latency enqueues samples jobs one at a time on an idle worker, each
	// once the previous one started, and returns each job's delay from
	// enqueue to start, in database time.
	Latency(ctx context.Context, samples int) ([]time.Duration, error)
	// Close stops everything and drops the schema.
	Close(ctx context.Context) error
}

// opener opens a system on a fresh schema of the database at url.
type opener func(ctx context.Context, url, schema string) (system, error)

// span is what Span reads: completed jobs and the database times of the
// first start and the last completion.
type span struct {
	n           int
	first, last time.Time
}

func (s span) rate() float64 {
	d := s.last.Sub(s.first).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(s.n) / d
}

// readSpan runs a query that returns count, first start and last
// completion.
func readSpan(ctx context.Context, db *pgxpool.Pool, query string) (span, error) {
	var s span
	var first, last *time.Time
	if err := db.QueryRow(ctx, query).Scan(&s.n, &first, &last); err != nil {
		return span{}, fmt.Errorf("read the completed jobs' span: %w", err)
	}
	if first != nil && last != nil {
		s.first, s.last = *first, *last
	}
	return s, nil
}

// readDelays runs a query returning one delay per row, in microseconds,
// and returns them sorted.
func readDelays(ctx context.Context, db *pgxpool.Pool, query string) ([]time.Duration, error) {
	rows, err := db.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("read enqueue-to-start delays: %w", err)
	}
	micros, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("read enqueue-to-start delays: %w", err)
	}
	delays := make([]time.Duration, len(micros))
	for i, us := range micros {
		delays[i] = time.Duration(us) * time.Microsecond
	}
	slices.Sort(delays)
	return delays, nil
}

// quantile returns the q-quantile (0 ≤ q < 1) of sorted.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*q))]
}

// dropSchema drops schema and everything in it.
func dropSchema(ctx context.Context, url, schema string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}

// checkpoint has the server write a checkpoint. A throughput run starts
// right after one, so that none falls within it: inserting a million jobs
// writes more WAL than max_wal_size, and the checkpoint that asks for
// would otherwise fall, or not, in whichever system's run came next.
func checkpoint(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// serverSetting reads one setting as the benchmark's connections see it.
func serverSetting(ctx context.Context, url, name string) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", fmt.Errorf("read setting %s: %w", name, err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
		return "", fmt.Errorf("read setting %s: %w", name, err)
	}
	return v, nil
}
