package sim

import (
	"math/bits"
	"time"
)

// localClock is a worker machine's clock: it runs at its own speed (drift)
// and can jump, while the store keeps true time. Speed is kept in parts per
// million and all arithmetic is integer, so every machine computes the same
// local times.
type localClock struct {
	ppm       int64         // speed = 1 + ppm/1e6
	baseTrue  time.Duration // true time of the last re-basing
	baseLocal time.Time     // local reading at baseTrue
}

func newLocalClock(start time.Time, at time.Duration, ppm int64) localClock {
	return localClock{ppm: ppm, baseTrue: at, baseLocal: start}
}

// read returns the local time at true time t.
func (c *localClock) read(t time.Duration) time.Time {
	return c.baseLocal.Add(scale(t-c.baseTrue, c.ppm))
}

// trueDelay returns how much true time passes while this clock measures d.
// Timers run on the monotonic clock, so jumps do not move them; drift does.
func (c *localClock) trueDelay(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), 1_000_000)
	q, _ := bits.Div64(hi, lo, uint64(1_000_000+c.ppm))
	return time.Duration(q)
}

// jump moves the clock by by at true time t.
func (c *localClock) jump(t, by time.Duration) {
	c.baseLocal = c.read(t).Add(by)
	c.baseTrue = t
}

// scale returns d × (1 + ppm/1e6) in integer arithmetic.
func scale(d time.Duration, ppm int64) time.Duration {
	whole, part := int64(d)/1_000_000, int64(d)%1_000_000
	return d + time.Duration(whole*ppm+part*ppm/1_000_000)
}
