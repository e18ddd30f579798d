package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// parseRate reads set-rate's N/PERIOD (PERIOD a Go duration, or a unit
// alone for one of it: 5/s), or none (or 0) for no rate.
func parseRate(s string) (int, time.Duration, error) {
	if s == "none" || s == "0" {
		return 0, 0, nil
	}
	bad := func(why string) error {
		return usagef("rate %s: %s; want N/PERIOD with N from 1 to %d and PERIOD from %s to %s (e.g. 100/1m, 5/s), or none",
			shown(s), why, store.MaxQueueRate, fmtDuration(store.MinRatePeriod), fmtDuration(store.MaxRatePeriod))
	}
	count, per, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, bad("no /")
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 || n > store.MaxQueueRate {
		return 0, 0, bad("the count is not a number in range")
	}
	period, err := time.ParseDuration(per)
	if err != nil && per != "" && (per[0] < '0' || per[0] > '9') {
		period, err = time.ParseDuration("1" + per)
	}
	if err != nil {
		return 0, 0, bad("the period is not a duration")
	}
	if period < store.MinRatePeriod || period > store.MaxRatePeriod {
		return 0, 0, bad("the period is out of range")
	}
	return n, period, nil
}

// formatRate prints a rate as set-rate reads it: 100/1m.
func formatRate(n int, period time.Duration) string { return format.Rate(n, period) }
