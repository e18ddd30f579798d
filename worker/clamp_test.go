package worker

import (
	"math"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// A handler's snooze and timeout are the user's numbers: they are bounded
// before the worker adds them to a time.
func TestSnoozeAndTimeoutAreBounded(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{
		{math.MaxInt64, clockrng.MaxDuration}, {-time.Second, 0}, {3 * time.Second, 3 * time.Second},
	} {
		if got := snoozeOf(Snooze(c.in)); got != c.want {
			t.Errorf("Snooze(%v) waits %v, want %v", c.in, got, c.want)
		}
	}
	var h handler
	WithTimeout(math.MaxInt64)(&h)
	if h.timeout != clockrng.MaxDuration {
		t.Errorf("WithTimeout(MaxInt64) = %v, want %v", h.timeout, clockrng.MaxDuration)
	}
}
