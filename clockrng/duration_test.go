package clockrng

import (
	"math"
	"testing"
	"time"
)

func TestMulDurationNeverOverflows(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		n    int64
		want time.Duration
	}{
		{time.Second, 30, 30 * time.Second},
		{time.Second, 0, 0},
		{time.Second, -5, 0},
		{-time.Second, 5, 0},
		// A Retry-After of 9,300,000,000 seconds: the product wraps to a
		// negative duration unless clamped first.
		{time.Second, 9_300_000_000, MaxDuration},
		{time.Second, math.MaxInt64, MaxDuration},
		{MaxDuration, 2, MaxDuration},
		{time.Duration(math.MaxInt64), 1, MaxDuration},
		{time.Nanosecond, int64(MaxDuration), MaxDuration},
		{time.Nanosecond, int64(MaxDuration) + 1, MaxDuration},
	} {
		if got := MulDuration(c.d, c.n); got != c.want {
			t.Errorf("MulDuration(%v, %d) = %v, want %v", c.d, c.n, got, c.want)
		}
	}
}

func TestScaleDurationNeverOverflows(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{time.Second, 1.5, 1500 * time.Millisecond},
		{5 * time.Second, math.Pow(2, 61), MaxDuration},
		{5 * time.Second, math.Inf(1), MaxDuration},
		{5 * time.Second, math.NaN(), 0},
		{5 * time.Second, -2, 0},
		{-5 * time.Second, 2, 0},
	} {
		if got := ScaleDuration(c.d, c.f); got != c.want {
			t.Errorf("ScaleDuration(%v, %v) = %v, want %v", c.d, c.f, got, c.want)
		}
	}
}

// The default policy at a high attempt, with full jitter: the nominal
// delay used to sit at MaxInt64/2, so the jitter's lower bound was -1 ns
// and drawing between the bounds overflowed (a panic in Int64N).
func TestBackoffHighAttemptStaysWithinTheCeiling(t *testing.T) {
	r := NewRand(9)
	for _, b := range []Backoff{DefaultBackoff(), {Base: 5 * time.Second, Factor: 2, Jitter: 1}, {Base: time.Second, Factor: 1e6, Jitter: 0.5}} {
		for _, attempt := range []int{29, 30, 61, 62, 63, 64, 999} {
			lo, hi := b.Bounds(attempt)
			if lo < 0 || hi > MaxDuration || lo > hi {
				t.Fatalf("%+v: Bounds(%d) = [%v, %v], want within [0, %v]", b, attempt, lo, hi, MaxDuration)
			}
			if d := b.Delay(attempt, r); d < lo || d > hi {
				t.Fatalf("%+v: Delay(%d) = %v, outside [%v, %v]", b, attempt, d, lo, hi)
			}
		}
	}
	if got := DefaultBackoff().Nominal(999); got != MaxDuration {
		t.Errorf("default Nominal(999) = %v, want the ceiling %v", got, MaxDuration)
	}
}
