package mem

import (
	"context"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// slotsBefore is a queue's rate slots before a transaction first wrote
// them (nil: none).
type slotsBefore struct {
	key  string
	last []time.Time
}

func (t *tx) SetQueueRate(_ context.Context, name string, n int, period time.Duration) error {
	if err := rules.ValidateQueueRate(name, n, period); err != nil {
		return err
	}
	if err := t.editQueue("rate", name, rules.RateEdit(n, period)); err != nil {
		return err
	}
	if len(t.s.rateSlots[name]) != n {
		t.setSlots(name, rules.ResizeRateSlots(t.s.rateSlots[name], n))
	}
	return nil
}

// setSlots records and applies a write of the rate slots under key.
func (t *tx) setSlots(key string, last []time.Time) {
	if !slices.ContainsFunc(t.slots, func(b slotsBefore) bool { return b.key == key }) {
		t.slots = append(t.slots, slotsBefore{key, slices.Clone(t.s.rateSlots[key])})
	}
	t.s.writeSlots(key, last)
}

// writeSlots stores a queue's rate slots (none: deletes them).
func (s *Store) writeSlots(key string, last []time.Time) {
	if len(last) == 0 {
		delete(s.rateSlots, key)
		return
	}
	s.rateSlots[key] = last
}

// slotsKey names the rate slots a worker's reservation of queue q uses:
// the queue's own, shared by every worker.
func slotsKey(q *store.Queue, worker ulid.ULID) string {
	if mutant.On(mutant.RatePerWorker) {
		return q.Name + "\x00" + worker.String()
	}
	return q.Name
}

// freeSlots counts the slots of q that admit a start at now.
func (s *Store) freeSlots(q *store.Queue, worker ulid.ULID, now time.Time) int {
	last, ok := s.rateSlots[slotsKey(q, worker)]
	if !ok {
		last = make([]time.Time, q.Rate) // only the planted bug's slots start empty here
	}
	n := 0
	for _, l := range last {
		if rules.SlotFree(l, now, q.RatePeriod) {
			n++
		}
	}
	return n
}

// takeSlot stamps now on the first slot of queue that admits a start at
// now; Reserve calls it once per job of a rate-limited queue it starts,
// after openQueues counted the free slots.
func (t *tx) takeSlot(name string, worker ulid.ULID) {
	q := t.s.queues[name]
	if q == nil || q.Rate == 0 {
		return
	}
	key := slotsKey(q, worker)
	last := slices.Clone(t.s.rateSlots[key])
	if last == nil {
		last = make([]time.Time, q.Rate)
	}
	i := slices.IndexFunc(last, func(l time.Time) bool { return rules.SlotFree(l, t.now, q.RatePeriod) })
	last[i] = t.now
	t.setSlots(key, last)
}
