package clockrng

import "time"

// Jitter returns a duration drawn uniformly from [d×(1−frac), d×(1+frac)].
// A frac of 0 returns d; frac is clamped to [0, 1].
func Jitter(r *Rand, d time.Duration, frac float64) time.Duration {
	lo, hi := JitterBounds(d, frac)
	if lo == hi {
		return d
	}
	return r.DurationBetween(lo, hi)
}

// JitterBounds returns the smallest and largest value Jitter can return.
func JitterBounds(d time.Duration, frac float64) (lo, hi time.Duration) {
	frac = min(max(frac, 0), 1)
	spread := time.Duration(float64(d) * frac)
	return d - spread, d + spread
}
