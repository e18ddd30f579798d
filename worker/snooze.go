package worker

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/worker/engine"
)

// Snoozed is the decision of a handler that returned Snooze.
const Snoozed = engine.Snooze

// snoozeError carries a Snooze result.
type snoozeError struct{ d time.Duration }

func (e *snoozeError) Error() string { return fmt.Sprintf("snoozed for %v", e.d) }

// Snooze is a handler's result for a job that should run again after d,
// in store time, without using up an attempt: its row ends as snoozed and
// a new row runs the same attempt d later (a negative d counts as 0, and
// one longer than clockrng.MaxDuration as that).
// Nothing the handler recorded with RecordOutput is kept. A job that has
// snoozed Config.MaxSnoozes times fails for good at its next snooze, with
// a reason saying so, so that a handler that always snoozes cannot keep
// its job alive forever.
func Snooze(d time.Duration) error { return &snoozeError{clockrng.ClampDuration(d)} }

// snoozeOf is SnoozeOf's wait alone.
func snoozeOf(err error) time.Duration {
	d, _ := SnoozeOf(err)
	return d
}

// SnoozeOf returns the wait of a Snooze result that err is or wraps.
func SnoozeOf(err error) (time.Duration, bool) {
	var s *snoozeError
	if errors.As(err, &s) {
		return s.d, true
	}
	return 0, false
}
