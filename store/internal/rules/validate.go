package rules

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// ValidateQueueLimit returns an error wrapping store.ErrInvalid unless name is a
// valid queue name and limit lies between 0 and store.MaxQueueLimit, the same in
// every store.
func ValidateQueueLimit(name string, limit int) error { return validateLimit("limit", name, limit) }

// ValidateQueueKeyLimit is ValidateQueueLimit for a per-key limit.
func ValidateQueueKeyLimit(name string, limit int) error {
	return validateLimit("per-key limit", name, limit)
}

// validateLimit checks a limit of either kind, what naming it.
func validateLimit(what, name string, limit int) error {
	if err := names.Check("queue", name); err != nil {
		return fmt.Errorf("set the %s of a queue: %w", what, err)
	}
	if limit < 0 || limit > store.MaxQueueLimit {
		return fmt.Errorf("set the %s of queue %q to %d: must be 0 (none) to %d: %w", what, name, limit, store.MaxQueueLimit, store.ErrInvalid)
	}
	return nil
}

// ValidateDeadLetter returns an error wrapping store.ErrInvalid unless name
// and dead ("" for none) are valid queue names and differ, the same in
// every store.
func ValidateDeadLetter(name, dead string) error {
	if err := names.Check("queue", name); err != nil {
		return fmt.Errorf("set the dead-letter queue of a queue: %w", err)
	}
	if dead == "" {
		return nil
	}
	if err := names.Check("dead-letter queue", dead); err != nil {
		return fmt.Errorf("set the dead-letter queue of queue %s: %w", names.Quote(name), err)
	}
	if dead == name {
		return fmt.Errorf("queue %s cannot dead-letter to itself: %w", names.Quote(name), store.ErrInvalid)
	}
	return nil
}

// ValidateQueueRate returns an error wrapping store.ErrInvalid unless name is a
// valid queue name, n lies between 0 and store.MaxQueueRate and, for n > 0,
// period between store.MinRatePeriod and store.MaxRatePeriod, the same in every store.
func ValidateQueueRate(name string, n int, period time.Duration) error {
	if err := names.Check("queue", name); err != nil {
		return fmt.Errorf("set the rate of a queue: %w", err)
	}
	if n < 0 || n > store.MaxQueueRate {
		return fmt.Errorf("set the rate of queue %q to %d per %s: the count must be 0 (none) to %d: %w", name, n, period, store.MaxQueueRate, store.ErrInvalid)
	}
	if n > 0 && (period < store.MinRatePeriod || period > store.MaxRatePeriod) {
		return fmt.Errorf("set the rate of queue %q to %d per %s: the period must be %s to %s: %w", name, n, period, store.MinRatePeriod, store.MaxRatePeriod, store.ErrInvalid)
	}
	return nil
}

// ValidateDeadRows refuses a negative dead-row count.
func ValidateDeadRows(n int64) error {
	if n < 0 {
		return fmt.Errorf("record vacuum: dead rows %d must not be negative: %w", n, store.ErrInvalid)
	}
	return nil
}

// ValidateScheduleNames returns an error wrapping store.ErrInvalid for the
// first name that names.Check refuses, so that both stores' EnsureSchedules
// reject the same input with the same error before writing anything.
func ValidateScheduleNames(list []string) error {
	for _, name := range list {
		if err := names.Check("schedule", name); err != nil {
			return fmt.Errorf("ensure schedules: %w", err)
		}
	}
	return nil
}

// PageSize returns how many jobs ListJobs may return for f: its Limit, or
// store.DefaultListLimit when that is 0. An unknown status, a queue that
// is not a valid name, a negative limit or a negative age is an error
// wrapping store.ErrInvalid, the same in every store.
func PageSize(f store.JobFilter) (int, error) {
	if (f.Status != "" && !f.Status.Valid()) || f.Limit < 0 {
		return 0, fmt.Errorf("list jobs with status %q and limit %d: %w", f.Status, f.Limit, store.ErrInvalid)
	}
	if f.OlderThan < 0 {
		return 0, fmt.Errorf("list jobs older than %v: a negative age: %w", f.OlderThan, store.ErrInvalid)
	}
	if f.Queue != "" {
		if err := names.Check("queue", f.Queue); err != nil {
			return 0, fmt.Errorf("list jobs: %w", err)
		}
	}
	if f.Limit == 0 {
		return store.DefaultListLimit, nil
	}
	return f.Limit, nil
}
