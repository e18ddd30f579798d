package pg

import (
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/clockrng"
)

// A queue's rate period is read back from its row, which a hand-written
// UPDATE may have set to any interval: 300,000,000 hours has more
// microseconds than a time.Duration holds, and used to read back as a
// negative period; days and months used to be dropped.
func TestFromIntervalIsBounded(t *testing.T) {
	for _, c := range []struct {
		iv   pgtype.Interval
		want time.Duration
	}{
		{pgtype.Interval{Microseconds: 1_500_000}, 1500 * time.Millisecond},
		{pgtype.Interval{Microseconds: 300_000_000 * 3600 * 1_000_000}, clockrng.MaxDuration},
		{pgtype.Interval{Microseconds: math.MaxInt64}, clockrng.MaxDuration},
		{pgtype.Interval{Days: 2}, 48 * time.Hour},
		{pgtype.Interval{Months: 1, Days: 1, Microseconds: 1}, 31*24*time.Hour + time.Microsecond},
		{pgtype.Interval{Months: math.MaxInt32, Days: math.MaxInt32, Microseconds: math.MaxInt64}, clockrng.MaxDuration},
		{pgtype.Interval{Microseconds: -5}, 0},
	} {
		if got := fromInterval(c.iv); got != c.want {
			t.Errorf("fromInterval(%+v) = %v, want %v", c.iv, got, c.want)
		}
	}
}
