package store

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxQueueNameBytes is the longest queue or schedule name a store accepts.
const MaxQueueNameBytes = 128

// ValidName reports whether name may name a queue or a schedule: it is not
// empty and has at most MaxQueueNameBytes bytes.
func ValidName(name string) bool {
	return name != "" && len(name) <= MaxQueueNameBytes
}

// ValidateScheduleNames returns an error wrapping ErrInvalid for the first
// name that is not ValidName, so that both stores' EnsureSchedules reject
// the same input with the same error before writing anything.
func ValidateScheduleNames(names []string) error {
	for _, name := range names {
		if !ValidName(name) {
			return fmt.Errorf("ensure schedule %q: name must be 1 to %d bytes: %w", name, MaxQueueNameBytes, ErrInvalid)
		}
	}
	return nil
}

// ValidateNewJob checks a job before any store writes it, so that both
// stores reject exactly the same input with the same error.
func ValidateNewJob(j NewJob) error {
	if !ValidName(j.Queue) {
		return fmt.Errorf("job %s: queue name %q must be 1 to %d bytes: %w", j.ID, j.Queue, MaxQueueNameBytes, ErrInvalid)
	}
	if err := validateDocument("payload", j.Payload); err != nil {
		return fmt.Errorf("job %s on queue %q: %w", j.ID, j.Queue, err)
	}
	if j.Metadata != nil {
		if err := validateDocument("metadata", j.Metadata); err != nil {
			return fmt.Errorf("job %s on queue %q: %w", j.ID, j.Queue, err)
		}
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
