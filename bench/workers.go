package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// workers are worker processes of the sweep and bulk runs, each running
// no-op jobs of queue noop and recording its ticks in a meter of its own.
type workers struct {
	meters []*tickMeter
	ran    atomic.Int64 // jobs run, by all of them
	cancel context.CancelFunc
	done   chan error
	n      int // how many run
}

// startWorkers starts n workers on s with inflight jobs in flight each;
// observer, if not nil, sees their events.
func startWorkers(ctx context.Context, s *tickworkSystem, n, inflight int, observer engine.Observer) (*workers, error) {
	runCtx, cancel := context.WithCancel(ctx)
	ws := &workers{cancel: cancel, done: make(chan error, n)}
	for i := range n {
		m := newTickMeter()
		w, err := worker.New(s.st, worker.Options{Config: throughputConfig(inflight), Rand: clockrng.NewRand(uint64(i + 1)),
			Logger: slog.New(slog.DiscardHandler), MeterProvider: m.provider, Observer: observer})
		if err == nil {
			err = worker.Handle(w, "noop", func(context.Context, worker.Job[struct{}]) error { ws.ran.Add(1); return nil })
		}
		if err != nil {
			ws.stop()
			return nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
		ws.meters = append(ws.meters, m)
		ws.n++
		go func() { ws.done <- w.Run(runCtx) }()
	}
	return ws, nil
}

// stop stops the workers and returns the first error one returned.
func (ws *workers) stop() error {
	ws.cancel()
	var first error
	for range ws.n {
		if err := <-ws.done; err != nil && first == nil {
			first = err
		}
	}
	ws.n = 0
	return first
}

// report prints each worker's ticks and all of them together, and
// returns the latter.
func (ws *workers) report(ctx context.Context, out io.Writer) (tickStats, error) {
	var all tickStats
	for i, m := range ws.meters {
		st, err := m.stats(ctx)
		if err != nil {
			return all, err
		}
		all.add(st)
		fmt.Fprintf(out, "  worker %d: %v\n", i+1, st)
	}
	fmt.Fprintf(out, "  all workers: %v\n", all)
	return all, nil
}
