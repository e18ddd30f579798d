package engine

import "time"

// ShutdownCallTimeout is how long a store call after the stop may take
// before the runner gives it up: a lease TTL, since a store that answers
// slower than that has lost the worker its lease anyway. (While serving, a
// call has Config.CallTimeout.)
func ShutdownCallTimeout(cfg Config) time.Duration { return cfg.LeaseTTL }

// graceOf is the wait between cancelling the handlers still running at
// the drain deadline and releasing their jobs.
func graceOf(cfg Config) time.Duration { return min(cfg.DrainTimeout/10, time.Second) }

// ShutdownBound is the longest a graceful shutdown takes on the runner's
// local clock, from the stop to its exit, however slow or silent the
// store: the drain, a call in flight at its deadline, the grace, a call
// in flight at its end, then every try of the release and of the
// shutdown, each given up after ShutdownCallTimeout, with the backoffs between
// them.
func ShutdownBound(cfg Config) time.Duration {
	call := ShutdownCallTimeout(cfg)
	b := cfg.DrainTimeout + call + graceOf(cfg) + call + 2*ShutdownAttempts*call
	for try := 1; try < ShutdownAttempts; try++ {
		b += 2 * errorBackoff(cfg.PollInterval, try)
	}
	return b
}
