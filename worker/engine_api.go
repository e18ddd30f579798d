package worker

import "github.com/tickwork/tickwork/worker/engine"

// The configuration and the decisions an application uses are the
// engine's (worker/engine holds the core and the runner policy beneath
// Worker); they are named here so that an application needs only this
// package.

// Config is a worker's configuration; see DefaultConfig.
type Config = engine.Config

// ScheduleSpec is one cron schedule of Config.Schedules.
type ScheduleSpec = engine.ScheduleSpec

// Decision is what becomes of a job after one attempt.
type Decision = engine.Decision

// The decisions a handler's outcome maps to (see RetryJob, FailJob).
const (
	Succeed = engine.Succeed
	Retry   = engine.Retry
	Fail    = engine.Fail
)

// DefaultConfig returns the defaults a zero Config takes.
func DefaultConfig() Config { return engine.DefaultConfig() }

// The values that say "none" in a Config field whose zero means its
// default.
const (
	NoRetries = engine.NoRetries // MaxRetries: a job runs once
	NoSnoozes = engine.NoSnoozes // MaxSnoozes: a job's first snooze fails it
	NoJitter  = engine.NoJitter  // PollJitter: polls are not spread
	NoDrain   = engine.NoDrain   // DrainTimeout: shutdown cancels running jobs at once
)

// ReasonShutdown is the failed_reason of a job released at a graceful
// shutdown because it had not returned by the drain deadline.
const ReasonShutdown = engine.ReasonShutdown
