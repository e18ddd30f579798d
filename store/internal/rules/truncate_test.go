package rules

import (
	"testing"
	"time"
)

// Truncate's shortcut for whole microseconds must give what truncating
// gives: the same instant, UTC, no monotonic reading.
func TestTruncateAsTruncating(t *testing.T) {
	east := time.FixedZone("east", 5*3600)
	times := []time.Time{{}, time.Now(), time.Now().Truncate(time.Microsecond), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2030, 1, 1, 0, 0, 0, 1500, east), time.Date(1, 1, 1, 0, 0, 0, 999, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, east)}
	for _, tm := range times {
		want := tm.Truncate(time.Microsecond).UTC()
		if got := Truncate(tm); got != want || got.Location() != time.UTC {
			t.Errorf("Truncate(%v) = %v, truncating gives %v", tm, got, want)
		}
	}
}
