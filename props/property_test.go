package props

import (
	"fmt"
	"testing"
)

// TestPropertyNumbersHaveNoHoles: the properties are numbered 0, 1, 2, ...
// in the order they are listed, each with a name of its own, so a report's
// "property 16 (vacuum)" names the sixteenth promise after the well-formed
// history and a property added at the end takes the next number.
func TestPropertyNumbersHaveNoHoles(t *testing.T) {
	seen := map[string]Property{}
	for p := range numProperties {
		name := propertyNames[p]
		if name == "" {
			t.Errorf("property %d has no name", int(p))
		}
		if q, dup := seen[name]; dup {
			t.Errorf("properties %d and %d are both named %q", int(q), int(p), name)
		}
		seen[name] = p
		if want := fmt.Sprintf("%d (%s)", int(p), name); p.String() != want {
			t.Errorf("property %d prints %q, want %q", int(p), p.String(), want)
		}
	}
	for p, want := range map[Property]string{
		WellFormed:          "0 (well-formed history)",
		RetryBounds:         "2 (retry bounds)",
		Snoozes:             "15 (snoozes)",
		Vacuum:              "16 (vacuum)",
		ReservationLockWait: "17 (reservations never wait)",
		numProperties:       fmt.Sprintf("%d (unknown)", int(numProperties)),
	} {
		if p.String() != want {
			t.Errorf("property %d prints %q, want %q", int(p), p.String(), want)
		}
	}
}
