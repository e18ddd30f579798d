package engine

import (
	"cmp"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// The values that say "none" where a zero field of Config means its
// default.
const (
	// NoRetries as MaxRetries: a job runs once.
	NoRetries = -1
	// NoSnoozes as MaxSnoozes: a job's first snooze fails it.
	NoSnoozes = -1
	// NoJitter as PollJitter: the poll interval is not spread.
	NoJitter = -1.0
	// NoDrain as DrainTimeout: a graceful shutdown cancels and releases
	// running jobs at once.
	NoDrain time.Duration = -1
)

// DefaultConfig returns the defaults, with no queues and no schedules:
// the zero Config filled in by WithDefaults.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with each zero field set to its default and each
// "none" value (NoRetries, NoSnoozes, NoJitter, NoDrain) set to zero, the
// value a core runs with. It is for a Config as a caller writes it: a
// filled-in config whose MaxRetries is 0 would get the default again.
func (c Config) WithDefaults() Config {
	c.MaxConcurrent = cmp.Or(c.MaxConcurrent, 10)
	c.MaxFetch = cmp.Or(c.MaxFetch, 5)
	c.MaxRetries = orNone(c.MaxRetries, NoRetries, 10)
	c.MaxSnoozes = orNone(c.MaxSnoozes, NoSnoozes, 100)
	c.PollInterval = cmp.Or(c.PollInterval, time.Second)
	c.PollJitter = orNone(c.PollJitter, NoJitter, 0.1)
	c.HeartbeatInterval = cmp.Or(c.HeartbeatInterval, time.Minute)
	c.LeaseTTL = cmp.Or(c.LeaseTTL, 5*time.Second)
	// The two below keep their relation to the fields they must stay
	// within (Validate), so that setting only those fields works.
	c.LeaderInterval = cmp.Or(c.LeaderInterval, min(500*time.Millisecond, c.LeaseTTL/4))
	c.DeadWorkerThreshold = cmp.Or(c.DeadWorkerThreshold, max(2*time.Minute, 2*c.HeartbeatInterval))
	c.CallTimeout = cmp.Or(c.CallTimeout, min(c.DeadWorkerThreshold/2, maxCallTimeout))
	c.JobRetention = cmp.Or(c.JobRetention, 30*24*time.Hour)
	c.WorkerRetention = cmp.Or(c.WorkerRetention, 7*24*time.Hour)
	c.CleanupInterval = cmp.Or(c.CleanupInterval, time.Minute)
	c.CleanupBatch = cmp.Or(c.CleanupBatch, 2000)
	c.DrainTimeout = orNone(c.DrainTimeout, NoDrain, 30*time.Second)
	c.VacuumInterval = cmp.Or(c.VacuumInterval, time.Minute)
	c.VacuumTimeout = cmp.Or(c.VacuumTimeout, time.Hour)
	def := clockrng.DefaultBackoff()
	c.Backoff.Base = cmp.Or(c.Backoff.Base, def.Base)
	c.Backoff.Factor = cmp.Or(c.Backoff.Factor, def.Factor)
	c.Backoff.Max = cmp.Or(c.Backoff.Max, def.Max)
	c.Backoff.Jitter = cmp.Or(c.Backoff.Jitter, def.Jitter)
	return c
}

// maxCallTimeout caps the default CallTimeout: a statement of the job path
// takes milliseconds, so a call silent this long is on a dead connection.
const maxCallTimeout = 30 * time.Second

// orNone returns def for a zero v, zero for none, and v otherwise.
func orNone[T int | float64 | time.Duration](v, none, def T) T {
	switch v {
	case 0:
		return def
	case none:
		return 0
	}
	return v
}
