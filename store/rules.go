package store

import (
	"strings"
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

// CleanReason returns reason as both stores keep a failed_reason: with
// every invalid UTF-8 sequence and every NUL replaced by U+FFFD, which
// PostgreSQL's text could not hold. A reason is a handler's error text, so
// FailJob must store whatever it is rather than fail the transaction that
// records the job's result (and with it every tick after).
func CleanReason(reason string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(reason, "\uFFFD"), "\x00", "\uFFFD")
}
