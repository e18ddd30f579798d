package sim

import (
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
		if a := ch.After; a != nil {
			s.tr.printf(s.now, actor, "queue %s paused %s limit %d", a.Name, stamp(a.PausedAt), a.Limit)
		} else {
			s.tr.printf(s.now, actor, "queue %s uncontrolled", ch.Before.Name)
		}
	}
	return out
}

func queueRow(q *store.Queue) *props.QueueRow {
	if q == nil {
		return nil
	}
	return &props.QueueRow{Name: q.Name, PausedAt: q.PausedAt, Limit: q.Limit}
}

func sameQueue(a, b *store.Queue) bool {
	if n, ok := both(a, b); n || !ok {
		return n
	}
	return a.Name == b.Name && a.PausedAt.Equal(b.PausedAt) && a.Limit == b.Limit
}
