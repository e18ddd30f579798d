package sim

import (
	"fmt"
	"time"
)

// Dur is a time.Duration that reads and writes as "1.5s" in JSON, so that a
// printed scenario stays readable and can be edited and replayed.
type Dur time.Duration

// D returns d as a time.Duration.
func (d Dur) D() time.Duration { return time.Duration(d) }

// String returns the duration in time.Duration's notation.
func (d Dur) String() string { return time.Duration(d).String() }

// MarshalText writes the duration as time.Duration.String does.
func (d Dur) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a duration such as "250ms" or "1m30s".
func (d *Dur) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	*d = Dur(v)
	return nil
}
