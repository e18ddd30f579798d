package sim

import (
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of per-key limits: with the KeyLimits kind on, most
// enqueued jobs get a partition key, half of those the one hot key, so a
// hot key's backlog builds behind its limit while the cold keys' jobs must
// pass it; and an operator sets a random queue's per-key limit to 1 or 2,
// or removes it, during chaos. Its own fault kind and source, so that
// seeds without it draw as before.

// partitionKeys are the keys drawn: the first is the hot one.
var partitionKeys = []string{"hot", "k1", "k2", "k3"}

// drawPartitionKey is a job's partition key: none unless KeyLimits is on,
// else none one time in five, the hot key half of the rest.
func (s *sim) drawPartitionKey() string {
	if !s.on(KeyLimits) {
		return ""
	}
	r := s.clientRand(KeyLimits)
	switch {
	case r.Chance(0.2):
		return ""
	case r.Chance(0.5):
		return partitionKeys[0]
	}
	return partitionKeys[1+r.IntN(len(partitionKeys)-1)]
}

// firstKeyLimit marks (in event.gen) the per-key limit set as chaos
// begins.
const firstKeyLimit = 1

// armFirstKeyLimit has the operator set a per-key limit as soon as chaos
// begins, when KeyLimits is on: the operator's timer alone (5 to 20 s
// apart) often set none in a short run, and concurrent reservations of a
// limited key, which the interleaved run needs, came too seldom.
func (s *sim) armFirstKeyLimit() {
	if s.on(KeyLimits) && s.phase == chaos {
		s.after(0, &event{kind: evKeyLimit, w: -1, gen: firstKeyLimit})
	}
}

// keyLimit has the operator set or remove a random queue's per-key limit
// (set it, when first).
func (s *sim) keyLimit(first bool) {
	defer s.armGlobalFault(KeyLimits, evKeyLimit)
	if s.phase != chaos {
		return
	}
	r := s.clientRand(KeyLimits)
	q := s.cfg.Queues[r.IntN(s.sc.Queues)]
	n := 1 + r.IntN(2)
	if r.IntN(3) == 0 && !first {
		n = 0
	}
	s.count(KeyLimits)
	s.operator(func(tx store.Tx) error { return tx.SetQueueKeyLimit(s.ctx, q, n) })
}

// keyLimitMark notes a commit that started a job of a queue with a
// per-key limit while a ready job of the queue waits for its key's limit:
// the reservation had to skip over it. Once noted, it costs nothing more.
func (s *sim) keyLimitMark(e *props.Event) {
	if len(e.Jobs) == 0 || s.res.Marks.Has(MarkKeyLimitHeld) || !s.on(KeyLimits) { // most events change no job
		return
	}
	for _, ch := range e.Jobs {
		b, a := ch.Before, ch.After
		if a == nil || a.Status != props.Running || (b != nil && b.Status == props.Running) {
			continue
		}
		if s.checker.KeyHeldBack(a.Queue, e.Time) {
			s.res.Marks.set(MarkKeyLimitHeld)
			return
		}
	}
}
