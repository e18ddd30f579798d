package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tickwork/tickwork/internal/names"
)

// MaxQueueNameBytes (128) is the longest queue or schedule name a store
// accepts: 1 to 128 bytes of valid UTF-8 without NUL, which PostgreSQL's
// text type cannot hold.
const MaxQueueNameBytes = names.MaxNameBytes

// The times a store accepts: the years of RFC 3339, so that every row can
// be written, compared and printed the same way in both stores (PostgreSQL
// alone would take years up to 294276 and refuse the rest with SQLSTATE
// 22008).
var (
	MinTime = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, time.December, 31, 23, 59, 59, 999999000, time.UTC)
)

// checkTime returns an error wrapping ErrInvalid unless t is zero (which
// means the store's now) or lies between MinTime and MaxTime.
func checkTime(what string, t time.Time) error {
	if t.IsZero() || (!t.Before(MinTime) && !t.After(MaxTime)) {
		return nil
	}
	return fmt.Errorf("%s %s is outside the years 1 to 9999: %w", what, t.UTC().Format(time.RFC3339Nano), ErrInvalid)
}

// ValidateNewJob checks a job before any store writes it, so that both
// stores reject exactly the same input with the same error. Values
// PostgreSQL would refuse with a raw SQLSTATE (a NUL in a name, a time
// past its range) are refused here as ErrInvalid, in both stores alike.
func ValidateNewJob(j NewJob) error {
	name := func() string { // built only for an error: every enqueue comes here
		if j.ID.IsZero() { // the enqueue API assigns ids after checking
			return "job"
		}
		return "job " + j.ID.String()
	}
	if err := names.Check("queue", j.Queue); err != nil {
		return fmt.Errorf("%s: %w", name(), err)
	}
	var err error
	if j.Priority < MinPriority || j.Priority > MaxPriority {
		err = fmt.Errorf("priority %d is outside %d to %d: %w", j.Priority, MinPriority, MaxPriority, ErrInvalid)
	}
	if err == nil && (j.MaxAttempts < 0 || j.MaxAttempts > MaxJobAttempts) {
		err = fmt.Errorf("max attempts %d is outside 0 (none) to %d: %w", j.MaxAttempts, MaxJobAttempts, ErrInvalid)
	}
	if err == nil {
		err = checkPartitionKey(j.PartitionKey)
	}
	if err == nil {
		err = checkSequence(j)
	}
	if err == nil && j.ScheduleName != "" {
		err = names.Check("schedule", j.ScheduleName)
	}
	if err == nil {
		err = checkTime("scheduled_at", j.ScheduledAt)
	}
	if err == nil {
		err = validateDocument("payload", j.Payload)
	}
	if err == nil && j.Metadata != nil {
		err = validateDocument("metadata", j.Metadata)
	}
	if err == nil {
		err = validateUnique(j)
	}
	if err == nil {
		err = checkParents(j)
	}
	if err == nil {
		err = checkBatch(j)
	}
	if err != nil {
		return fmt.Errorf("%s on queue %q: %w", name(), j.Queue, err)
	}
	return nil
}

// checkPartitionKey refuses what PostgreSQL's text could not hold or an
// index should not: a key longer than MaxPartitionKeyBytes, invalid UTF-8
// or a NUL.
func checkPartitionKey(key string) error {
	switch {
	case len(key) > MaxPartitionKeyBytes:
		return fmt.Errorf("partition key is %d bytes, more than the %d allowed: %w", len(key), MaxPartitionKeyBytes, ErrInvalid)
	case !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("partition key %q is not valid UTF-8 without NUL: %w", key, ErrInvalid)
	}
	return nil
}

func validateDocument(what string, doc json.RawMessage) error {
	if len(doc) > MaxPayloadBytes {
		return fmt.Errorf("%s is %d bytes, more than the %d allowed: %w", what, len(doc), MaxPayloadBytes, ErrInvalid)
	}
	if !json.Valid(doc) {
		return fmt.Errorf("%s is not valid JSON: %w", what, ErrInvalid)
	}
	// PostgreSQL's json type refuses invalid UTF-8, so both stores refuse
	// it before writing anything.
	if !utf8.Valid(doc) {
		return fmt.Errorf("%s is not valid UTF-8: %w", what, ErrInvalid)
	}
	return nil
}
