package store

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

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

// FormatRate prints n starts per period as the CLI reads it: 100/1m.
func FormatRate(n int, period time.Duration) string {
	return fmt.Sprintf("%d/%s", n, FormatPeriod(period))
}

// FormatPeriod prints a duration without its zero minutes and seconds:
// 1m, 1h30m, 1.5s.
func FormatPeriod(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
