package engine

import (
	"testing"
	"time"
)

// The memo answers as nextRun does, whatever the order of the times asked:
// across the end of a leap-day schedule's horizon (March 2099, 2104 being
// its next time after 2100's gap), and with the clock going back.
func TestCronTimesAnswersAsNextRun(t *testing.T) {
	for _, expr := range []string{"0 0 0 29 2 *", "*/10 * * * * *", "0 0 0 31 * *"} {
		sched, err := parseCron(expr)
		if err != nil {
			t.Fatal(err)
		}
		memo := &cronTimes{sched: sched}
		now := time.Date(2096, 1, 1, 0, 0, 0, 0, time.UTC)
		steps := []time.Duration{7 * time.Second, 40 * 24 * time.Hour, -3 * time.Hour, 400 * 24 * time.Hour, 1500 * time.Millisecond}
		for i := range 60 {
			now = now.Add(steps[i%len(steps)])
			gotAt, gotOK := memo.next(now)
			wantAt, wantOK := nextRun(sched, now)
			if !gotAt.Equal(wantAt) || gotOK != wantOK {
				t.Fatalf("%q at %v: memo says (%v, %t), nextRun (%v, %t)", expr, now, gotAt, gotOK, wantAt, wantOK)
			}
		}
	}
}
