package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/worker"
)

// tickworkSystem is tickwork on its own schema.
type tickworkSystem struct {
	st     *pg.Store
	client *worker.Client
	tables string // the quoted schema
	seed   uint64
	lanes  int // in throughput runs; 0 is throughputLanes
	// noHistory: the throughput runs' queue keeps no history, so each
	// completion deletes its job's row (worker.Client.SetQueueHistory);
	// Span then reads handled.
	noHistory bool
	handled   handledSpan
}

// tickworkOpener opens tickwork running lanes lanes in throughput runs
// (0: throughputLanes), on a queue that keeps its completed jobs' rows
// unless noHistory.
func tickworkOpener(lanes int, noHistory bool) opener {
	return func(ctx context.Context, url, schema string) (system, error) {
		s, err := newTickwork(ctx, url, schema)
		if err != nil {
			return nil, err
		}
		s.lanes, s.noHistory = lanes, noHistory
		if noHistory {
			if err := s.client.SetQueueHistory(ctx, "noop", false); err != nil {
				s.st.Close()
				return nil, err
			}
		}
		return s, nil
	}
}

// freshTickwork drops schema, left over from an earlier run, and opens
// tickwork on it anew.
func freshTickwork(ctx context.Context, url, schema string) (*tickworkSystem, error) {
	if err := dropSchema(ctx, url, schema); err != nil {
		return nil, err
	}
	return newTickwork(ctx, url, schema)
}

func newTickwork(ctx context.Context, url, schema string) (*tickworkSystem, error) {
	st, err := pg.Open(ctx, url, pg.Options{Schema: schema})
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return &tickworkSystem{st: st, client: worker.NewClient(st, clockrng.NewRand(99)), tables: pgx.Identifier{schema}.Sanitize()}, nil
}

func (s *tickworkSystem) Name() string { return "tickwork" }

func (s *tickworkSystem) Insert(ctx context.Context, n, batch int) error {
	return insertBatches(n, batch, func(k int) error {
		_, err := worker.EnqueueMany(ctx, s.client, make([]struct{}, k), worker.WithQueue("noop"))
		return err
	})
}

// insertBatches calls insert with batch sizes summing to n.
func insertBatches(n, batch int, insert func(k int) error) error {
	for left := n; left > 0; left -= batch {
		if err := insert(min(left, batch)); err != nil {
			return fmt.Errorf("bulk enqueue: %w", err)
		}
	}
	return nil
}

// throughputConfig fetches as many jobs per tick as may run at once.
func throughputConfig(inflight int) worker.Config {
	cfg := worker.DefaultConfig()
	cfg.Queues = []string{"noop"}
	cfg.MaxConcurrent = inflight
	cfg.MaxFetch = inflight
	return cfg
}

func (s *tickworkSystem) Work(ctx context.Context, inflight, stopAfter int) error {
	lanes := s.lanes
	if lanes == 0 {
		lanes = throughputLanes(inflight)
	}
	return s.work(ctx, throughputConfig(inflight), stopAfter, func(o *worker.Options) { o.Lanes = lanes })
}

// throughputLanes is the worker's rule of thumb (worker.Options.Lanes):
// one lane below 100 jobs in flight, two from 100, and one per 500 from
// 1,500.
func throughputLanes(inflight int) int {
	if inflight < 100 {
		return 1
	}
	return max(2, inflight/500)
}

// work runs one worker with cfg until stopAfter no-op jobs ran, then shuts
// it down gracefully. opts, if set, adjusts the worker's options.
func (s *tickworkSystem) work(ctx context.Context, cfg worker.Config, stopAfter int, opts func(*worker.Options)) error {
	s.seed++
	o := worker.Options{Config: cfg, Rand: clockrng.NewRand(s.seed), Logger: slog.New(slog.DiscardHandler)}
	if opts != nil {
		opts(&o)
	}
	w, err := worker.New(s.st, o)
	if err != nil {
		return err
	}
	enough := countTo(stopAfter)
	s.handled.take()
	noop := func(context.Context, worker.Job[struct{}]) error {
		start := time.Now()
		enough.add()
		s.handled.add(start, time.Now())
		return nil
	}
	if err := worker.Handle(w, "noop", noop); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	select {
	case <-enough.done:
	case err := <-done:
		return fmt.Errorf("tickwork worker stopped early: %v", err)
	case <-ctx.Done():
	}
	cancel()
	if err := <-done; err != nil {
		return err
	}
	return ctx.Err()
}

// Span reads the completed rows, or with no history the handlers' span.
func (s *tickworkSystem) Span(ctx context.Context) (span, error) {
	if s.noHistory {
		return s.handled.take(), nil
	}
	return readSpan(ctx, s.st.Pool(), "SELECT count(*), min(started_at), max(completed_at) FROM "+s.tables+".jobs WHERE status = 'completed'")
}

func (s *tickworkSystem) Latency(ctx context.Context, samples int) ([]time.Duration, error) {
	w, err := worker.New(s.st, worker.Options{Config: worker.DefaultConfig(), Rand: clockrng.NewRand(1), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	started := make(chan struct{}, 1)
	if err := worker.Handle(w, "ping", func(context.Context, worker.Job[struct{}]) error { started <- struct{}{}; return nil }); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	err = pingEach(ctx, samples, started, func() error {
		_, err := worker.Enqueue(ctx, s.client, struct{}{}, worker.WithQueue("ping"))
		return err
	})
	cancel()
	if runErr := <-done; err == nil {
		err = runErr
	}
	if err != nil {
		return nil, err
	}
	return readDelays(ctx, s.st.Pool(), "SELECT (extract(epoch FROM started_at - created_at) * 1e6)::bigint FROM "+s.tables+".jobs WHERE queue = 'ping'")
}

// pingEach enqueues samples jobs, each after the previous one started.
// The first waits until the worker is idle and listening.
func pingEach(ctx context.Context, samples int, started <-chan struct{}, enqueue func() error) error {
	time.Sleep(idleSettle)
	for i := range samples {
		if err := enqueue(); err != nil {
			return fmt.Errorf("enqueue sample %d: %w", i, err)
		}
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("sample %d did not start within 30 s", i)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// idleSettle is how long a latency run lets its worker start and go idle.
const idleSettle = 500 * time.Millisecond

func (s *tickworkSystem) Close(ctx context.Context) error {
	defer s.st.Close()
	return s.st.DropSchema(ctx)
}

// counter closes done once add has been called n times.
type counter struct {
	n    int64
	got  atomic.Int64
	once sync.Once
	done chan struct{}
}

func countTo(n int) *counter { return &counter{n: int64(n), done: make(chan struct{})} }

func (c *counter) add() {
	if c.got.Add(1) >= c.n {
		c.once.Do(func() { close(c.done) })
	}
}
