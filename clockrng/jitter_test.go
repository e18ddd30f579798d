package clockrng

import (
	"testing"
	"time"
)

func TestJitterWithinBounds(t *testing.T) {
	r := NewRand(8)
	for _, frac := range []float64{0.1, 0.5, 1} {
		lo, hi := JitterBounds(time.Second, frac)
		wantSpread := time.Duration(float64(time.Second) * frac)
		if lo != time.Second-wantSpread || hi != time.Second+wantSpread {
			t.Fatalf("JitterBounds(1s, %v) = [%v, %v]", frac, lo, hi)
		}
		below, above := false, false
		for range 1000 {
			d := Jitter(r, time.Second, frac)
			if d < lo || d > hi {
				t.Fatalf("Jitter(1s, %v) = %v outside [%v, %v]", frac, d, lo, hi)
			}
			below, above = below || d < time.Second, above || d > time.Second
		}
		if !below || !above {
			t.Fatalf("Jitter(1s, %v) stays on one side", frac)
		}
	}
}

func TestJitterClampsFraction(t *testing.T) {
	if got := Jitter(NewRand(1), time.Second, 0); got != time.Second {
		t.Fatalf("Jitter with frac 0 = %v", got)
	}
	if lo, hi := JitterBounds(time.Second, -2); lo != time.Second || hi != time.Second {
		t.Fatalf("negative frac: [%v, %v]", lo, hi)
	}
	if lo, hi := JitterBounds(time.Second, 7); lo != 0 || hi != 2*time.Second {
		t.Fatalf("frac above 1: [%v, %v]", lo, hi)
	}
}

func TestMockClockOnlyMovesWhenTold(t *testing.T) {
	m := NewMock()
	start := m.Now()
	if !start.Equal(time.Unix(0, 0)) {
		t.Fatalf("mock starts at %s, want the Unix epoch", start)
	}
	m.Add(time.Minute)
	if got := m.Now().Sub(start); got != time.Minute {
		t.Fatalf("mock moved %v after Add(1m)", got)
	}
}
