package storetest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// The differential's draws of the queue controls: pause,
// resume, limit, rate, pause-all and the listing.

// drawPriority is usually the default, sometimes any valid priority and
// rarely one out of range.
func drawPriority(rt *rapid.T) int {
	switch rapid.IntRange(0, 9).Draw(rt, "priority kind") {
	case 0, 1, 2, 3:
		return rapid.IntRange(store.MinPriority, store.MaxPriority).Draw(rt, "priority")
	case 4:
		return rapid.SampledFrom([]int{store.MinPriority - 1, store.MaxPriority + 1}).Draw(rt, "bad priority")
	}
	return 0
}

func drawQueueName(rt *rapid.T) string { return rarely(rt, diffQueues, 3, "control queue") }

func drawPauseQueue(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	return op{fmt.Sprintf("pauseQueue %q", q), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.PauseQueue(ctx, q)
	}}
}

func drawResumeQueue(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	return op{fmt.Sprintf("resumeQueue %q", q), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.ResumeQueue(ctx, q)
	}}
}

func drawPauseAll(*rapid.T, *diff) op {
	return op{"pauseAll", func(ctx context.Context, tx store.Tx) (string, error) { return "", tx.PauseAll(ctx) }}
}

func drawResumeAll(*rapid.T, *diff) op {
	return op{"resumeAll", func(ctx context.Context, tx store.Tx) (string, error) { return "", tx.ResumeAll(ctx) }}
}

func drawPausedAll(*rapid.T, *diff) op {
	return op{"pausedAll", func(ctx context.Context, tx store.Tx) (string, error) {
		at, err := tx.PausedAll(ctx)
		return format.Time(at), err
	}}
}

func drawSetQueueLimit(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	n := rapid.SampledFrom([]int{-1, 0, 1, 2, 3, 5}).Draw(rt, "queue limit")
	return op{fmt.Sprintf("setQueueLimit %q %d", q, n), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.SetQueueLimit(ctx, q, n)
	}}
}

// drawSetQueueKeyLimit is usually a per-key limit of 1 or 2, sometimes
// none and rarely one out of range.
func drawSetQueueKeyLimit(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	n := rapid.SampledFrom([]int{1, 2, 1, 2, 0, -1}).Draw(rt, "queue per-key limit")
	return op{fmt.Sprintf("setQueueKeyLimit %q %d", q, n), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.SetQueueKeyLimit(ctx, q, n)
	}}
}

// drawSetQueueRate is usually a rate whose period spans a few of
// advanceClock's steps, sometimes none and rarely one out of range.
func drawSetQueueRate(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	n := rapid.SampledFrom([]int{1, 2, 3, 1, 2, 0, -1}).Draw(rt, "queue rate")
	period := rapid.SampledFrom([]time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute,
		30 * time.Second, time.Hour, 1500 * time.Microsecond, 0, store.MaxRatePeriod + time.Second}).Draw(rt, "rate period")
	return op{fmt.Sprintf("setQueueRate %q %d %s", q, n, period), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.SetQueueRate(ctx, q, n, period)
	}}
}

func drawListQueues(*rapid.T, *diff) op {
	return op{"listQueues", func(ctx context.Context, tx store.Tx) (string, error) {
		stats, err := tx.ListQueues(ctx)
		return fmtQueueStats(stats), err
	}}
}

// fmtQueueStats prints ListQueues's answer with its counts in status order.
func fmtQueueStats(stats []store.QueueStats) string {
	var b strings.Builder
	for _, q := range stats {
		fmt.Fprintf(&b, "queue %q paused=%s limit=%d rate=%d/%s dead-letter=%q history=%s", q.Name, format.Time(q.PausedAt), q.Limit, q.Rate, q.RatePeriod, q.DeadLetter, q.History())
		for _, s := range store.Statuses() {
			if n := q.Counts[s]; n > 0 {
				fmt.Fprintf(&b, " %s=%d", s, n)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
