package clockrng

import "time"

// MaxDuration is the ceiling of every duration tickwork computes from a
// number it does not choose itself: a Retry-After header, a handler's
// snooze or timeout, a backoff at a high attempt, a period read from a
// row. It is 100 years of 365 days: longer than any wait that means
// something, yet twice it still fits in a time.Duration, and a time of
// this century plus it stays within every store's range, so that adding
// clamped durations to each other or to a time never overflows.
const MaxDuration = 100 * 365 * 24 * time.Hour

// ClampDuration returns d within [0, MaxDuration]: a negative wait is none.
func ClampDuration(d time.Duration) time.Duration { return min(max(d, 0), MaxDuration) }

// MulDuration returns d × n within [0, MaxDuration]. The product never
// overflows, whatever n: a count of seconds a server sent, say.
func MulDuration(d time.Duration, n int64) time.Duration {
	d = ClampDuration(d)
	if d == 0 || n <= 0 {
		return 0
	}
	if d > MaxDuration/time.Duration(n) {
		return MaxDuration
	}
	return d * time.Duration(n)
}

// ScaleDuration returns d × f within [0, MaxDuration]: a factor that
// makes the product too long for a time.Duration, +Inf included, gives
// MaxDuration, and a negative or NaN factor gives 0.
func ScaleDuration(d time.Duration, f float64) time.Duration {
	p := float64(ClampDuration(d)) * f
	switch {
	case !(p > 0): // NaN, negative or zero
		return 0
	case p >= float64(MaxDuration):
		return MaxDuration
	}
	return time.Duration(p)
}
