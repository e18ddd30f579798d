package clockrng

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultBackoffTable(t *testing.T) {
	want := []time.Duration{
		5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second,
		80 * time.Second, 160 * time.Second, 320 * time.Second, 640 * time.Second,
		1280 * time.Second, 42*time.Minute + 40*time.Second, 85*time.Minute + 20*time.Second,
	}
	b := DefaultBackoff()
	if err := b.Validate(); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
	for attempt, w := range want {
		if got := b.Nominal(attempt); got != w {
			t.Errorf("Nominal(%d) = %v, want %v", attempt, got, w)
		}
		if got := b.Delay(attempt, NewRand(1)); got != w {
			t.Errorf("Delay(%d) without jitter = %v, want %v", attempt, got, w)
		}
		if lo, hi := b.Bounds(attempt); lo != w || hi != w {
			t.Errorf("Bounds(%d) = [%v, %v], want exactly %v", attempt, lo, hi, w)
		}
	}
	if got := b.Nominal(-3); got != 5*time.Second {
		t.Errorf("Nominal(-3) = %v, want the base", got)
	}
}

func TestBackoffCap(t *testing.T) {
	b := Backoff{Base: time.Second, Factor: 3, Max: time.Minute}
	for attempt, w := range []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 27 * time.Second, time.Minute, time.Minute} {
		if got := b.Nominal(attempt); got != w {
			t.Errorf("Nominal(%d) = %v, want %v", attempt, got, w)
		}
	}
	uncapped := DefaultBackoff()
	if got := uncapped.Nominal(1000); got <= 0 {
		t.Fatalf("Nominal(1000) without cap = %v, want a large positive delay", got)
	}
}

func TestBackoffJitterWithinBounds(t *testing.T) {
	b := Backoff{Base: 5 * time.Second, Factor: 2, Max: 10 * time.Minute, Jitter: 0.25}
	r := NewRand(4)
	for attempt := range 12 {
		lo, hi := b.Bounds(attempt)
		nominal := b.Nominal(attempt)
		if lo != nominal-nominal/4 || hi != nominal+nominal/4 {
			t.Fatalf("Bounds(%d) = [%v, %v] around %v", attempt, lo, hi, nominal)
		}
		varied := false
		for range 200 {
			d := b.Delay(attempt, r)
			if d < lo || d > hi {
				t.Fatalf("Delay(%d) = %v outside [%v, %v]", attempt, d, lo, hi)
			}
			varied = varied || d != nominal
		}
		if !varied {
			t.Fatalf("Delay(%d) with jitter never moved from %v", attempt, nominal)
		}
	}
	if got := b.Delay(3, nil); got != b.Nominal(3) {
		t.Fatalf("Delay with a nil source = %v, want the nominal delay", got)
	}
}

func TestBackoffValidate(t *testing.T) {
	for _, c := range []struct {
		b    Backoff
		want string
	}{
		{Backoff{Base: 0, Factor: 2}, "base"},
		{Backoff{Base: -time.Second, Factor: 2}, "base"},
		{Backoff{Base: time.Second, Factor: 0.5}, "factor"},
		{Backoff{Base: time.Second, Factor: 2, Max: -1}, "cap"},
		{Backoff{Base: time.Second, Factor: 2, Jitter: -0.1}, "jitter"},
		{Backoff{Base: time.Second, Factor: 2, Jitter: 1.5}, "jitter"},
	} {
		err := c.b.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error about %s", c.b, err, c.want)
		}
	}
	if err := (Backoff{Base: time.Second, Factor: 1, Jitter: 1}).Validate(); err != nil {
		t.Errorf("Validate of a constant policy with full jitter: %v", err)
	}
}
