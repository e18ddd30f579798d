package sim

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// Edges of the calendar and of arithmetic that a scenario may reach. Each
// is drawn from a source of its own, so a seed that draws neither keeps
// every other setting, and its trace, as it was before they existed.
const (
	// leapDayCron fires on 29 February alone. From leapDayStart the cron
	// library finds no time for it within the five years it searches
	// (2100 is no leap year), though Validate, which asks from 2001,
	// accepts it: the one way a schedule with no next time reaches a
	// leader.
	leapDayCron = "0 0 0 29 2 *"
	// leapDayShare and hugeBackoffShare are the shares of seeds (of those
	// with schedules, for the first) that draw each edge; no seed of
	// testdata/golden_traces.txt draws either at these shares.
	leapDayShare     = 0.2
	hugeBackoffShare = 0.15
	// hugeFactor makes a backoff's product pass the range of a
	// time.Duration on the retry of attempt 1, whatever the base: only
	// the backoff's cap keeps the delay sane.
	hugeFactor = 1e12
)

// leapDayStart is where the store's clock starts with the leap-day edge.
var leapDayStart = time.Date(2097, 1, 1, 0, 0, 0, 0, time.UTC)

// drawEdges draws the edges into s: with schedules on, a schedule on 29
// February alone with the store's clock in 2097; and a backoff with a
// huge factor under a cap of a few seconds.
func drawEdges(s *Scenario) {
	if s.On(Schedules) && clockrng.NewRand(s.Seed).Child("edge/leap-day").Chance(leapDayShare) {
		s.Start = leapDayStart
		s.Crons = append(s.Crons, CronSpec{Name: "leapday", Cron: leapDayCron, Queue: queueName(0)})
	}
	if r := clockrng.NewRand(s.Seed).Child("edge/backoff"); r.Chance(hugeBackoffShare) {
		s.BackoffFactor = hugeFactor
		s.BackoffMax = Dur(r.DurationBetween(500*time.Millisecond, 3*time.Second).Truncate(time.Millisecond))
	}
}

// edgeLines renders the edges s reaches for the head of a trace (none for
// a seed that reaches none, so its trace is unchanged).
func edgeLines(s *Scenario) []string {
	var out []string
	if s.BackoffMax > 0 {
		out = append(out, fmt.Sprintf("backoff max %v", s.BackoffMax))
	}
	if !s.Start.IsZero() {
		out = append(out, "store clock starts "+s.Start.Format(time.RFC3339))
	}
	return out
}
