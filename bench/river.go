package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// riverSystem is River on its own schema: its pool's search_path names
// the schema, and rivermigrate creates River's tables there.
type riverSystem struct {
	pool     *pgxpool.Pool
	schema   string
	tables   string // the quoted schema
	cooldown time.Duration
	inserter *river.Client[pgx.Tx]
}

type noopArgs struct{}

func (noopArgs) Kind() string { return "noop" }

type pingArgs struct{}

func (pingArgs) Kind() string { return "ping" }

// riverWorker calls do for every job of kind T.
type riverWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	do func()
}

func (w *riverWorker[T]) Work(context.Context, *river.Job[T]) error { w.do(); return nil }

// riverOpener opens River with fetch cooldown cooldown for throughput
// runs (River's throughput knob; its default is 100 ms).
func riverOpener(cooldown time.Duration) opener {
	return func(ctx context.Context, url, schema string) (system, error) {
		return openRiver(ctx, url, schema, cooldown)
	}
}

func openRiver(ctx context.Context, url, schema string, cooldown time.Duration) (system, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("river: parse the database URL: %w", err)
	}
	tables := pgx.Identifier{schema}.Sanitize()
	cfg.ConnConfig.RuntimeParams["search_path"] = tables
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("river: connect: %w", err)
	}
	s := &riverSystem{pool: pool, schema: schema, tables: tables, cooldown: cooldown}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if s.inserter, err = river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: quiet()}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("river: insert-only client: %w", err)
	}
	return s, nil
}

func (s *riverSystem) migrate(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s.tables); err != nil {
		return fmt.Errorf("river: create schema %s: %w", s.schema, err)
	}
	m, err := rivermigrate.New(riverpgxv5.New(s.pool), &rivermigrate.Config{Logger: quiet()})
	if err != nil {
		return fmt.Errorf("river: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river: migrate schema %s: %w", s.schema, err)
	}
	return nil
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func (s *riverSystem) Name() string { return "River" }

func (s *riverSystem) Insert(ctx context.Context, n, batch int) error {
	params := make([]river.InsertManyParams, batch)
	for i := range params {
		params[i].Args = noopArgs{}
	}
	return insertBatches(n, batch, func(k int) error {
		_, err := s.inserter.InsertManyFast(ctx, params[:k])
		return err
	})
}

func (s *riverSystem) Work(ctx context.Context, inflight, stopAfter int) error {
	enough := countTo(stopAfter)
	workers := river.NewWorkers()
	river.AddWorker(workers, &riverWorker[noopArgs]{do: enough.add})
	client, err := river.NewClient(riverpgxv5.New(s.pool), &river.Config{
		Logger:        quiet(),
		FetchCooldown: s.cooldown,
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: inflight}},
		Workers:       workers,
	})
	if err != nil {
		return fmt.Errorf("river: client: %w", err)
	}
	return runRiver(ctx, client, func() error {
		select {
		case <-enough.done:
		case <-ctx.Done():
		}
		return ctx.Err()
	})
}

// runRiver starts client, calls wait, and stops client gracefully.
func runRiver(ctx context.Context, client *river.Client[pgx.Tx], wait func() error) error {
	if err := client.Start(ctx); err != nil {
		return fmt.Errorf("river: start: %w", err)
	}
	err := wait()
	if stopErr := client.Stop(context.WithoutCancel(ctx)); err == nil && stopErr != nil {
		err = fmt.Errorf("river: stop: %w", stopErr)
	}
	return err
}

func (s *riverSystem) Span(ctx context.Context) (span, error) {
	return readSpan(ctx, s.pool, "SELECT count(*), min(attempted_at), max(finalized_at) FROM "+s.tables+".river_job WHERE state = 'completed'")
}

// Latency runs River with the throughput runs' fetch cooldown (with its
// default of 100 ms the median is about 100 ms), its other defaults (poll
// 1 s, LISTEN/NOTIFY) and ten workers, tickwork's default concurrency.
func (s *riverSystem) Latency(ctx context.Context, samples int) ([]time.Duration, error) {
	started := make(chan struct{}, 1)
	workers := river.NewWorkers()
	river.AddWorker(workers, &riverWorker[pingArgs]{do: func() { started <- struct{}{} }})
	client, err := river.NewClient(riverpgxv5.New(s.pool), &river.Config{
		Logger:        quiet(),
		FetchCooldown: s.cooldown,
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 10}},
		Workers:       workers,
	})
	if err != nil {
		return nil, fmt.Errorf("river: client: %w", err)
	}
	err = runRiver(ctx, client, func() error {
		return pingEach(ctx, samples, started, func() error {
			_, err := client.Insert(ctx, pingArgs{}, nil)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return readDelays(ctx, s.pool, "SELECT (extract(epoch FROM attempted_at - created_at) * 1e6)::bigint FROM "+s.tables+".river_job WHERE kind = 'ping'")
}

func (s *riverSystem) Close(ctx context.Context) error {
	defer s.pool.Close()
	if _, err := s.pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+s.tables+" CASCADE"); err != nil {
		return fmt.Errorf("river: drop schema %s: %w", s.schema, err)
	}
	return nil
}
