package sim

import (
	"testing"
	"time"
)

func TestAppendStamp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "    0.000000"},
		{1500 * time.Millisecond, "    1.500000"},
		{123456*time.Second + 7*time.Microsecond, "123456.000007"},
		{-2*time.Second - 250*time.Microsecond, "   -2.000250"},
		{999 * time.Nanosecond, "    0.000000"},
	} {
		if got := string(appendStamp(nil, c.d)); got != c.want {
			t.Errorf("appendStamp(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestTracerKeepsTheTail(t *testing.T) {
	tr := newTracer(nil, 3, false)
	for i := range 5 {
		tr.printf(time.Duration(i)*time.Second, "w0", "line %d", i)
	}
	got := tr.tail()
	if len(got) != 3 || got[0] != "    2.000000 w0 line 2" || got[2] != "    4.000000 w0 line 4" {
		t.Fatalf("tail = %q", got)
	}
	if tr.lines != 5 {
		t.Fatalf("lines = %d, want 5", tr.lines)
	}
}

func TestLocalClockDriftAndJump(t *testing.T) {
	c := newLocalClock(Epoch, 0, 100_000) // runs 10% fast
	if got := c.read(10 * time.Second).Sub(Epoch); got != 11*time.Second {
		t.Fatalf("after 10s true time the clock reads +%v, want +11s", got)
	}
	if got := c.trueDelay(11 * time.Second); got != 10*time.Second {
		t.Fatalf("an 11s local timer takes %v of true time, want 10s", got)
	}
	c.jump(10*time.Second, -5*time.Second)
	if got := c.read(20 * time.Second).Sub(Epoch); got != 17*time.Second {
		t.Fatalf("after a -5s jump and 10s more the clock reads +%v, want +17s", got)
	}
}
