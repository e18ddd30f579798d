package worker

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// RetryPolicy is a queue's own retry policy, as a handler's WithQueueMaxAttempts
// and WithRetryDelay options set it.
type RetryPolicy = engine.RetryPolicy

// ErrJobLost and ErrReleased are wrapped by the error a WithRetryDelay
// function gets for a job that did not end in its handler: rescued from a
// worker that was declared dead, or released at a graceful shutdown.
var (
	ErrJobLost  = engine.ErrJobLost
	ErrReleased = engine.ErrReleased
)

// WithQueueMaxAttempts bounds the runs of each job of the handler's queue, retries
// included, to n (1 to store.MaxJobAttempts) in place of the config's
// MaxRetries+1. A job enqueued WithMaxAttempts keeps its own bound. A
// leader rescuing a job of a queue it has no handler for applies the
// config's bound: give the job its own, or register the handler on every
// worker, when the bound must hold whichever worker decides.
func WithQueueMaxAttempts(n int) HandlerOption {
	return func(h *handler) {
		if n < 1 || n > store.MaxJobAttempts {
			h.optErr = errors.Join(h.optErr, fmt.Errorf("WithQueueMaxAttempts(%d): must be 1 to %d", n, store.MaxJobAttempts))
		}
		h.policy.MaxAttempts = n
	}
}

// WithRetryDelay makes delay decide the wait before each retry of the
// handler's jobs, in place of the config's Backoff: attempt is the number
// of the attempt that failed, err its error (a handler's, or one wrapping
// ErrJobLost or ErrReleased), and r the worker's own seeded source, from
// which alone any jitter must be drawn, so that a seed replays the same
// delays. A negative delay counts as 0. delay runs on the worker's loop,
// in the transaction that records the failure: keep it quick.
func WithRetryDelay(delay func(attempt int, err error, r *clockrng.Rand) time.Duration) HandlerOption {
	return func(h *handler) {
		if delay == nil {
			h.optErr = errors.Join(h.optErr, errors.New("WithRetryDelay(nil)"))
		}
		h.policy.Delay = delay
	}
}

// WithRetryBackoff is WithRetryDelay with the delays of b (Base × Factor^attempt,
// capped at Max, spread by ±Jitter) whatever the error.
func WithRetryBackoff(b clockrng.Backoff) HandlerOption {
	return func(h *handler) {
		if err := b.Validate(); err != nil {
			h.optErr = errors.Join(h.optErr, fmt.Errorf("WithRetryBackoff: %w", err))
		}
		h.policy.Delay = func(attempt int, _ error, r *clockrng.Rand) time.Duration { return b.Delay(attempt, r) }
	}
}

// WithMaxAttempts gives each enqueued job its own bound on its runs,
// retries included: 1 to store.MaxJobAttempts, taking precedence over its
// handler's WithQueueMaxAttempts and the config's MaxRetries, whichever worker
// decides its retries (a leader rescuing it included). A bound out of
// range is an error and nothing is written.
func WithMaxAttempts(n int) EnqueueOption {
	return func(o *enqueueOptions) { o.maxAttempts, o.maxAttemptsSet = n, true }
}

// checkMaxAttempts refuses a WithMaxAttempts out of range: 0, which the
// store reads as none, included.
func (o enqueueOptions) checkMaxAttempts() error {
	if o.maxAttemptsSet && (o.maxAttempts < 1 || o.maxAttempts > store.MaxJobAttempts) {
		return fmt.Errorf("worker: WithMaxAttempts(%d): must be 1 to %d", o.maxAttempts, store.MaxJobAttempts)
	}
	return nil
}

// policies returns the retry policies of the handlers that set one, over
// those the config names.
func policies(cfg map[string]RetryPolicy, handlers map[string]*handler) map[string]RetryPolicy {
	out := make(map[string]RetryPolicy, len(cfg))
	for q, p := range cfg {
		out[q] = p
	}
	for q, h := range handlers {
		if h.policy.MaxAttempts != 0 || h.policy.Delay != nil {
			p := out[q]
			if h.policy.MaxAttempts != 0 {
				p.MaxAttempts = h.policy.MaxAttempts
			}
			if h.policy.Delay != nil {
				p.Delay = h.policy.Delay
			}
			out[q] = p
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
