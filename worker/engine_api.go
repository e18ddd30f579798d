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

// DefaultConfig returns the SPEC's defaults.
func DefaultConfig() Config { return engine.DefaultConfig() }

// ReasonShutdown is the failed_reason of a job released at a graceful
// shutdown because it had not returned by the drain deadline.
const ReasonShutdown = engine.ReasonShutdown
