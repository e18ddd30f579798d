package store

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxQueueNameBytes is the longest queue or schedule name a store accepts.
const MaxQueueNameBytes = 128

// ValidateNewJob checks a job before any store writes it, so that both
// stores reject exactly the same input with the same error.
func ValidateNewJob(j NewJob) error {
	if j.Queue == "" || len(j.Queue) > MaxQueueNameBytes {
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
