// Package format prints the values tickwork shows as text: times and ids
// so that rows compare as text, and rates and periods as the CLI reads
// them. It imports nothing of tickwork, so that the stores, the CLI and
// the console print alike.
package format

import (
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Time formats a time with its zone, or "null" for the zero time, so that
// times compare as text including their location.
func Time(t time.Time) string {
	if t.IsZero() {
		return "null"
	}
	return t.Format(time.RFC3339Nano) + "[" + t.Location().String() + "]"
}

// ID formats an id, or "null" for the zero id (a NULL column).
func ID(u ulid.ULID) string {
	if u == (ulid.ULID{}) {
		return "null"
	}
	return u.String()
}

// Lease formats the lease row held by worker from elected until expires.
func Lease(worker ulid.ULID, elected, expires time.Time) string {
	return fmt.Sprintf("lease worker=%s elected=%s expires=%s", worker, Time(elected), Time(expires))
}

// Rate prints n starts per period as the CLI reads it: 100/1m.
func Rate(n int, period time.Duration) string {
	return fmt.Sprintf("%d/%s", n, Period(period))
}

// Period prints a duration without its zero minutes and seconds: 1m,
// 1h30m, 1.5s.
func Period(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
