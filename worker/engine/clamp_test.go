package engine

import (
	"math"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// A retry policy's delay and a snooze's wait come from the user's code:
// however long (or negative) they are, the next row waits within [0,
// clockrng.MaxDuration], so the store never adds an overflowed delay.
func TestOutsideDelaysAreClamped(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(store.Job) Result
		delay  time.Duration // the policy's
		kind   EventKind
		want   time.Duration
	}{
		{"retry policy's MaxInt64", func(j store.Job) Result { return Result{JobID: j.ID, Decision: Retry, Reason: "busy"} },
			math.MaxInt64, EventRetryScheduled, clockrng.MaxDuration},
		{"retry policy's negative", func(j store.Job) Result { return Result{JobID: j.ID, Decision: Retry, Reason: "busy"} },
			math.MinInt64, EventRetryScheduled, 0},
		{"snooze of MaxInt64", func(j store.Job) Result { return Result{JobID: j.ID, Decision: Snooze, Snooze: math.MaxInt64} },
			0, EventJobSnoozed, clockrng.MaxDuration},
		{"snooze of MinInt64", func(j store.Job) Result { return Result{JobID: j.ID, Decision: Snooze, Snooze: math.MinInt64} },
			0, EventJobSnoozed, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := testConfig()
			cfg.Policies = map[string]RetryPolicy{"q": {Delay: func(int, error, *clockrng.Rand) time.Duration { return c.delay }}}
			core, rec := e.core(cfg, 1)
			e.enqueue("q", 1)
			for _, j := range e.tick(core) {
				core.finished(c.answer(j))
			}
			e.tick(core)
			evs := rec.of(c.kind)
			if len(evs) != 1 {
				t.Fatalf("%d %v events, want 1", len(evs), c.kind)
			}
			ev := evs[0]
			if ev.Delay != c.want || !ev.Next.ScheduledAt.Equal(ev.StoreTime.Add(c.want)) {
				t.Fatalf("next row scheduled %v after the end (delay %v), want %v", ev.Next.ScheduledAt.Sub(ev.StoreTime), ev.Delay, c.want)
			}
		})
	}
}
