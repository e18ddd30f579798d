package main

import (
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/worker"
)

// hookPayload is a job of the built-in webhook queue.
type hookPayload struct {
	URL  string `json:"url"`
	Body any    `json:"body"`
}

// noopPayload is a job of the built-in noop queue.
type noopPayload struct {
	N int `json:"n"`
}

// enqueuer adds jobs continuously through the Go client: batches of one to
// four, 60% webhooks, one batch in five scheduled up to two seconds ahead.
// An enqueue that fails (the database is being restarted or its
// connection was terminated) is counted and not retried: its outcome is
// unknown, and the final rows show whether it committed.
type enqueuer struct {
	client *worker.Client
	hook   *hookServer
	rnd    *clockrng.Rand
	seed   uint64

	ids     []ulid.ULID // every id whose enqueue returned success
	errors  int
	lastErr error
	next    int // sequence number of the next job
}

// run enqueues until ctx ends.
func (e *enqueuer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(e.rnd.DurationBetween(30*time.Millisecond, 100*time.Millisecond)):
		}
		e.batch(ctx)
	}
}

// batch enqueues one batch, all on one queue.
func (e *enqueuer) batch(ctx context.Context) {
	n := 1 + e.rnd.IntN(4)
	var opts []worker.EnqueueOption
	if e.rnd.Chance(0.2) {
		opts = append(opts, worker.WithScheduledAt(time.Now().Add(e.rnd.DurationBetween(200*time.Millisecond, 2*time.Second))))
	}
	var ids []ulid.ULID
	var err error
	if e.rnd.Chance(0.6) {
		payloads := make([]hookPayload, n)
		for i := range payloads {
			payloads[i] = hookPayload{URL: e.hook.url(fmt.Sprintf("%d-%d", e.seed, e.next)), Body: map[string]int{"n": e.next}}
			e.next++
		}
		ids, err = worker.EnqueueMany(ctx, e.client, payloads, append(opts, worker.WithQueue("webhook"))...)
	} else {
		payloads := make([]noopPayload, n)
		for i := range payloads {
			payloads[i] = noopPayload{N: e.next}
			e.next++
		}
		ids, err = worker.EnqueueMany(ctx, e.client, payloads, append(opts, worker.WithQueue("noop"))...)
	}
	if err != nil {
		if ctx.Err() == nil {
			e.errors++
			e.lastErr = err
		}
		return
	}
	e.ids = append(e.ids, ids...)
}
