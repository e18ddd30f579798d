package store

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Truncate returns t as a store keeps it, by the store-time rule of
// store/SEMANTICS.md: truncated to the microsecond (PostgreSQL's timestamptz
// precision), in UTC. The zero time stays the zero time, which stores write
// as NULL.
func Truncate(t time.Time) time.Time {
	return t.Truncate(time.Microsecond).UTC()
}

// LostReason is the failed_reason of a running job that RescueLostJobs
// marks lost; worker is its started_by, the zero ULID when that worker was
// deleted. Stores build it in Go because SQL cannot print a ULID.
func LostReason(worker ulid.ULID) string {
	if worker == (ulid.ULID{}) {
		return "worker was deleted"
	}
	return "worker " + worker.String() + " was declared dead"
}
