package engine

import (
	"time"

	"github.com/robfig/cron/v3"

	"github.com/tickwork/tickwork/internal/mutant"
)

// cronTimes is a schedule's cron expression with nextRun's last answer,
// which stands for every store time in [from, until). A schedule with no
// time within ScheduleHorizon (29 February from March 2096) costs the cron
// library a search of five years, day by day, and every leader pass asks
// again: most of a simulation's schedule seeds reach it.
type cronTimes struct {
	sched       cron.Schedule
	from, until time.Time
	at          time.Time // zero: no cron time within the horizon
}

// next is nextRun(t.sched, now), answered from the memo when now is in
// its span. A time at stays the first cron time after any now before it.
// "None" from now means none in (now, now+ScheduleHorizon] (the library
// looks that far), so it stands until now+ScheduleHorizon reaches the
// first cron time after that horizon: asked for once, from there.
func (t *cronTimes) next(now time.Time) (time.Time, bool) {
	if mutant.On(mutant.ScheduleZeroDue) {
		return nextRun(t.sched, now) // its answer for "none" is a time
	}
	if !now.Before(t.from) && now.Before(t.until) {
		return t.at, !t.at.IsZero()
	}
	at, ok := nextRun(t.sched, now)
	t.from, t.until, t.at = now, at, at
	if !ok {
		t.until, t.at = now, time.Time{}
		if after := t.sched.Next(now.Add(ScheduleHorizon).UTC()); !after.IsZero() {
			t.until = after.Add(-ScheduleHorizon)
		}
	}
	return at, ok
}
