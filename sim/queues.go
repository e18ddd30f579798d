package sim

import (
	"strconv"
	"strings"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// queueChanges converts a transaction's queues writes (see canonical).
func (s *sim) queueChanges(actor string, writes []store.QueueChange) []props.QueueChange {
	_, folded := canonical(writes, store.QueueChange.Name, func(w store.QueueChange) (*store.Queue, *store.Queue) { return w.Before, w.After },
		sameQueue, strings.Compare)
	out := make([]props.QueueChange, len(folded))
	for i, ch := range folded {
		out[i] = props.QueueChange{Before: queueRow(ch.Before), After: queueRow(ch.After)}
		s.rateWindow(rowName(ch.Before, ch.After)).Set(rateOf(ch.After))
		s.noteHistory(rowName(ch.Before, ch.After), ch.After)
		s.tr.printf(s.now, actor, "queue %s %s", rowName(ch.Before, ch.After), queueState(ch.After))
	}
	return out
}

func queueRow(q *store.Queue) *props.QueueRow {
	if q == nil {
		return nil
	}
	return &props.QueueRow{Name: q.Name, PausedAt: q.PausedAt, Limit: q.Limit, Rate: q.Rate, RatePeriod: q.RatePeriod,
		KeyLimit: q.KeyLimit, DeadLetter: q.DeadLetter, NoHistory: q.NoHistory}
}

func sameQueue(a, b *store.Queue) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.Name == b.Name && a.PausedAt.Equal(b.PausedAt) && a.Limit == b.Limit && a.Rate == b.Rate && a.RatePeriod == b.RatePeriod &&
		a.KeyLimit == b.KeyLimit && a.DeadLetter == b.DeadLetter && a.NoHistory == b.NoHistory
}

func rowName(before, after *store.Queue) string {
	if after != nil {
		return after.Name
	}
	return before.Name
}

// queueState describes a queue's controls for the trace.
func queueState(q *store.Queue) string {
	state := "active"
	if q != nil && !q.PausedAt.IsZero() {
		state = "paused"
	}
	if q != nil && q.Limit > 0 {
		state += " limit " + strconv.Itoa(q.Limit)
	}
	if q != nil && q.KeyLimit > 0 {
		state += " per-key " + strconv.Itoa(q.KeyLimit)
	}
	if q != nil && q.Rate > 0 {
		state += " rate " + strconv.Itoa(q.Rate) + "/" + q.RatePeriod.String()
	}
	if q != nil && q.NoHistory {
		state += " history none"
	}
	return state
}
