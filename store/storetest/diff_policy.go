package storetest

import (
	"context"
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// The differential's draws of the retry policies: a job's own
// bound at insert, and snoozes.

// drawMaxAttempts is usually none, sometimes a bound and rarely one out of
// range.
func drawMaxAttempts(rt *rapid.T) int {
	switch rapid.IntRange(0, 19).Draw(rt, "max attempts kind") {
	case 0, 1, 2, 3, 4, 5:
		return rapid.SampledFrom([]int{1, 2, 5, store.MaxJobAttempts}).Draw(rt, "max attempts")
	case 6:
		return rapid.SampledFrom([]int{-1, store.MaxJobAttempts + 1}).Draw(rt, "bad max attempts")
	}
	return 0
}

// drawSnooze snoozes a running row under its worker (usually), with a
// delay that may be zero or negative, to a new id or now and then one that
// exists.
func drawSnooze(rt *rapid.T, d *diff) op {
	w, id := d.runningPick(rt)
	newID := d.newJobID(rt)
	delay := duration(rt, "snooze", -time.Second, 2*time.Minute)
	return op{fmt.Sprintf("snoozeJob %s %s %s %v", w, id, newID, delay), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.SnoozeJob(ctx, w, id, newID, delay)
		return store.FormatJob(j), err
	}}
}
