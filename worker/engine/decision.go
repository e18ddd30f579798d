package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// Decision is what becomes of a job after one attempt.
type Decision int

// The decisions a handler's outcome maps to.
const (
	// Succeed marks the job completed.
	Succeed Decision = iota
	// Retry marks the attempt failed and, while attempts remain, schedules
	// the next one after the backoff delay.
	Retry
	// Fail marks the job failed for good: no further attempt.
	Fail
	// Snooze ends the attempt's run without consuming it: the job runs
	// again, as the same attempt, after Result.Snooze.
	Snooze
)

// String returns "succeed", "retry" or "fail".
func (d Decision) String() string {
	switch d {
	case Succeed:
		return "succeed"
	case Retry:
		return "retry"
	case Fail:
		return "fail"
	case Snooze:
		return "snooze"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Result is the outcome of one attempt of a job that ran locally. Reason
// explains a Retry or Fail; it is stored as the row's failed_reason.
type Result struct {
	JobID    ulid.ULID
	Decision Decision
	Reason   string
	// Output is what the handler recorded with RecordOutput, kept with the
	// completed row when the decision is Succeed; nil for none.
	Output json.RawMessage
	// Snooze is how long a Snooze decision waits (in store time) before the
	// job runs again.
	Snooze time.Duration
	// Err is the handler's error for a Retry or Fail, handed to the
	// queue's RetryPolicy.Delay; nil means one carrying Reason.
	Err error
}
