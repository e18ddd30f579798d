// Package jobid reads a job id as a person may give it, for the command
// line and the console alike: a ULID as tickwork prints it, or the same
// 16 bytes in the UUID form PostgreSQL shows (with or without dashes).
package jobid

import (
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// Parse returns the job id s names, and false when it names none.
func Parse(s string) (ulid.ULID, bool) {
	if id, err := ulid.ParseStrict(s); err == nil {
		return id, true
	}
	if len(s) >= 32 {
		if u, err := uuid.Parse(s); err == nil {
			return ulid.ULID(u), true
		}
	}
	return ulid.ULID{}, false
}
