package engine

import (
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// ShutdownCallTimeout is how long a store call after the stop may take
// before the runner gives it up: a lease TTL, since a store that answers
// slower than that has lost the worker its lease anyway. (While serving, a
// call has Config.CallTimeout.)
func ShutdownCallTimeout(cfg Config) time.Duration { return cfg.LeaseTTL }

// graceOf is the wait between cancelling the handlers still running at
// the drain deadline and releasing their jobs.
func graceOf(cfg Config) time.Duration { return min(cfg.DrainTimeout/10, time.Second) }

// CancelBound is the longest, on the runner's local clock, from the stop
// to the drain deadline's cancel of the handlers still running: the
// drain, then a store call in flight at its deadline, which the runner
// waits for before it steps anything else. The cancel itself comes at
// the deadline, with nothing between.
func CancelBound(cfg Config) time.Duration {
	return cfg.DrainTimeout + ShutdownCallTimeout(cfg)
}

// ReleaseBound is the longest, on the runner's local clock, from the stop
// to the release of the jobs whose handlers still run after the grace, or
// to giving their release up: CancelBound, the grace, a call in flight at
// its end, then every try of the release.
func ReleaseBound(cfg Config) time.Duration {
	return CancelBound(cfg) + graceOf(cfg) + ShutdownCallTimeout(cfg) + shutdownTries(cfg)
}

// ShutdownBound is the longest a graceful shutdown takes on the runner's
// local clock, from the stop to its exit, however slow or silent the
// store: ReleaseBound, then every try of the shutdown.
func ShutdownBound(cfg Config) time.Duration { return ReleaseBound(cfg) + shutdownTries(cfg) }

// shutdownTries is the longest the tries of one final store write take:
// ShutdownAttempts calls, each given up after ShutdownCallTimeout, with
// the error backoffs between them.
func shutdownTries(cfg Config) time.Duration {
	b := ShutdownAttempts * ShutdownCallTimeout(cfg)
	for try := 1; try < ShutdownAttempts; try++ {
		b += errorBackoff(cfg, try)
	}
	return b
}

// PollBound is the longest, on the runner's local clock, a serving runner
// whose last tick succeeded waits for its next tick: the poll interval
// with its largest jitter. The heartbeat and the lease may cut the wait
// shorter, never longer; after a failed tick it waits out the error
// backoff instead.
func PollBound(cfg Config) time.Duration {
	_, hi := clockrng.JitterBounds(cfg.PollInterval, cfg.PollJitter)
	return hi
}

// BackoffBound is the longest, on the runner's local clock, a serving
// runner whose last failures ticks failed in a row waits for its next
// tick: the error backoff (the poll interval doubled per failure, at most
// maxErrorBackoff and HeartbeatInterval) with its largest jitter.
func BackoffBound(cfg Config, failures int) time.Duration {
	_, hi := clockrng.JitterBounds(errorBackoff(cfg, failures), cfg.PollJitter)
	return hi
}

// WakeBound is the longest, on the runner's local clock, a serving runner
// with a free place and no failed tick behind it takes to begin a tick
// after a notification of jobs available in one of its queues: at once,
// or at the end of a linger for finishing results (resultLinger), which
// ticks anyway.
const WakeBound = resultLinger
