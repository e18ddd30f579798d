package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// RetryPolicy is one queue's own retry policy. A zero field takes the
// config's value: MaxRetries+1 attempts, the Backoff delays.
type RetryPolicy struct {
	// MaxAttempts bounds the runs of each of the queue's jobs, retries
	// included (1 to store.MaxJobAttempts; 0: MaxRetries+1). A job's own
	// bound (store.NewJob.MaxAttempts) takes precedence.
	MaxAttempts int
	// Delay returns the wait before the retry of attempt, which failed
	// with err, drawing any jitter from r (the worker's own seeded source:
	// it must draw from nothing else). err is the handler's error, or one
	// wrapping ErrJobLost or ErrReleased for a job the worker did not see
	// end. A negative delay counts as 0, and one longer than
	// clockrng.MaxDuration as that.
	Delay func(attempt int, err error, r *clockrng.Rand) time.Duration
}

// ErrJobLost is wrapped by the error a RetryPolicy's Delay gets for a job
// rescued from a worker that was declared dead; ErrReleased by the one for
// a job released at a graceful shutdown because it had not returned.
var (
	ErrJobLost  = errors.New("its worker was declared dead")
	ErrReleased = errors.New(ReasonShutdown)
)

// validatePolicies checks the policies in queue order.
func validatePolicies(policies map[string]RetryPolicy) []error {
	var errs []error
	for _, q := range slices.Sorted(maps.Keys(policies)) {
		if err := names.Check("queue", q); err != nil {
			errs = append(errs, fmt.Errorf("worker config: retry policy: %w", err))
		}
		if n := policies[q].MaxAttempts; n < 0 || n > store.MaxJobAttempts {
			errs = append(errs, fmt.Errorf("worker config: retry policy of queue %q: MaxAttempts is %d, must be 0 (MaxRetries+1) to %d",
				q, n, store.MaxJobAttempts))
		}
	}
	return errs
}

// maxAttempts returns the bound on job's attempts and where it comes
// from: the job's own, its queue's policy, or MaxRetries+1.
func (c *Core) maxAttempts(job store.Job) (int, string) {
	if job.MaxAttempts > 0 {
		return job.MaxAttempts, "the job's own max attempts"
	}
	if n := c.cfg.Policies[job.Queue].MaxAttempts; n > 0 && !mutant.On(mutant.HandlerMaxAttemptsIgnored) {
		return n, fmt.Sprintf("queue %s's max attempts", job.Queue)
	}
	return c.cfg.MaxRetries + 1, ""
}

// exhausted reports whether job has no attempt left, and if so why.
func (c *Core) exhausted(job store.Job) (bool, string) {
	bound, from := c.maxAttempts(job)
	if mutant.On(mutant.RetryAtMax) {
		bound++
	}
	if job.Attempt+1 < bound {
		return false, ""
	}
	if from == "" {
		return true, fmt.Sprintf("attempt %d reached MaxRetries %d", job.Attempt, c.cfg.MaxRetries)
	}
	return true, fmt.Sprintf("attempt %d reached %s, %d", job.Attempt, from, bound)
}

// retryDelay returns the wait before the retry of job, which failed with
// err: its queue's policy's, or the config's backoff, within [0,
// clockrng.MaxDuration] so that the store adds no overflowed delay.
func (c *Core) retryDelay(job store.Job, err error) time.Duration {
	if delay := c.cfg.Policies[job.Queue].Delay; delay != nil {
		return clockrng.ClampDuration(delay(job.Attempt, err, c.backoffRand))
	}
	return clockrng.ClampDuration(c.cfg.Backoff.Delay(job.Attempt, c.backoffRand))
}

// cause is the error a retry's delay is decided on: the handler's, or one
// carrying the reason when the driver gave none.
func (r Result) cause() error {
	if r.Err != nil {
		return r.Err
	}
	return errors.New(r.Reason)
}

// validateDeadLetters checks each queue's dead-letter queue: both valid
// names, and not the queue itself.
func validateDeadLetters(dead map[string]string) []error {
	var errs []error
	for _, q := range slices.Sorted(maps.Keys(dead)) {
		if err := names.Check("queue", q); err != nil {
			errs = append(errs, fmt.Errorf("worker config: dead letters: %w", err))
		}
		if err := names.Check("dead-letter queue", dead[q]); err != nil {
			errs = append(errs, fmt.Errorf("worker config: dead letters of queue %q: %w", q, err))
		}
		if dead[q] == q {
			errs = append(errs, fmt.Errorf("worker config: queue %q cannot dead-letter to itself", q))
		}
	}
	return errs
}
