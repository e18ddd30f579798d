package clockrng

import (
	"fmt"
	"math"
	"time"
)

// Backoff is the retry delay policy: Base × Factor^attempt, capped at Max
// (0 means no cap), then spread by ±Jitter (a fraction, 0 for none).
type Backoff struct {
	Base   time.Duration
	Factor float64
	Max    time.Duration
	Jitter float64
}

// DefaultBackoff is 5 s × 2^attempt without cap or jitter: 5 s, 10 s, 20 s …
// 42 min 40 s for attempt 9.
func DefaultBackoff() Backoff { return Backoff{Base: 5 * time.Second, Factor: 2} }

// Validate reports a policy that cannot produce sensible delays.
func (b Backoff) Validate() error {
	switch {
	case b.Base <= 0:
		return fmt.Errorf("backoff: base %v must be positive", b.Base)
	case b.Factor < 1:
		return fmt.Errorf("backoff: factor %v must be at least 1", b.Factor)
	case b.Max < 0:
		return fmt.Errorf("backoff: cap %v must not be negative", b.Max)
	case b.Jitter < 0 || b.Jitter > 1:
		return fmt.Errorf("backoff: jitter %v must be within [0, 1]", b.Jitter)
	}
	return nil
}

// Nominal returns the delay before the retry of attempt, without jitter:
// at most Max when the policy has a cap, and at most MaxDuration however
// high the attempt (5 s × 2^attempt passes it at attempt 30).
func (b Backoff) Nominal(attempt int) time.Duration {
	d := ScaleDuration(b.Base, math.Pow(b.Factor, float64(max(attempt, 0))))
	if b.Max > 0 {
		d = min(d, b.Max)
	}
	return d
}

// Delay returns the delay before the retry of attempt, with jitter drawn
// from r (r may be nil when the policy has no jitter), within [0,
// MaxDuration].
func (b Backoff) Delay(attempt int, r *Rand) time.Duration {
	if b.Jitter == 0 || r == nil {
		return b.Nominal(attempt)
	}
	lo, hi := b.Bounds(attempt)
	return r.DurationBetween(lo, hi)
}

// Bounds returns the smallest and largest delay Delay can return for
// attempt; a checker uses it to verify a retry's scheduled time. Both are
// within [0, MaxDuration].
func (b Backoff) Bounds(attempt int) (lo, hi time.Duration) {
	lo, hi = JitterBounds(b.Nominal(attempt), b.Jitter)
	return ClampDuration(lo), ClampDuration(hi)
}
