package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Truncate returns t as a store keeps it, by the store-time rule of
// store/SEMANTICS.md: truncated to the microsecond (PostgreSQL's timestamptz
// precision), in UTC. The zero time stays the zero time, which stores write
// as NULL.
func Truncate(t time.Time) time.Time {
	if t.Nanosecond()%1000 == 0 { // whole already, as most are: only the monotonic reading goes
		return t.Round(0).UTC()
	}
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

// A rate-limited queue admits each start through one of its Rate slots.
// A slot holds the store time of the last start it admitted (zero: none)
// and admits the next one only when RatePeriod has passed since: a start
// at t needs a slot whose last start is at or before t − RatePeriod. Each
// slot thus admits at most one start in any window of RatePeriod, and the
// queue at most Rate. Slots are claimed with FOR UPDATE SKIP LOCKED on
// PostgreSQL, so concurrent reservations never wait on each other.

// SlotFree reports whether a slot whose last start was last admits a
// start at store time now under period.
func SlotFree(last, now time.Time, period time.Duration) bool {
	return last.IsZero() || !last.After(now.Add(-period))
}

// ResizeRateSlots returns the slots a queue keeps when its rate becomes
// n: the n latest of its slots' last starts, latest first, then empty
// slots (zero times) up to n. Keeping the latest starts means a rate
// lowered right after a burst admits nothing more until the burst's starts
// leave the window.
func ResizeRateSlots(last []time.Time, n int) []time.Time {
	kept := slices.SortedFunc(slices.Values(last), func(a, b time.Time) int { return b.Compare(a) })
	if len(kept) > n {
		kept = kept[:n]
	}
	for len(kept) < n {
		kept = append(kept, time.Time{})
	}
	return kept
}

// NextStatus is the status of a retry's or a snooze's next row, scheduled
// delay after now: available at once when delay <= 0.
func NextStatus(delay time.Duration) store.Status {
	if delay <= 0 {
		return store.Available
	}
	return store.Scheduled
}
