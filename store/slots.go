package store

import (
	"fmt"
	"strings"
	"time"
)

// FormatRate prints n starts per period as the CLI reads it: 100/1m.
func FormatRate(n int, period time.Duration) string {
	return fmt.Sprintf("%d/%s", n, FormatPeriod(period))
}

// FormatPeriod prints a duration without its zero minutes and seconds:
// 1m, 1h30m, 1.5s.
func FormatPeriod(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
