package mem

import (
	"context"
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// runSlotsBefore is a queue's run slots before a transaction first wrote
// them (nil: none).
type runSlotsBefore struct {
	name string
	jobs [][]ulid.ULID
}

// SetQueueLimit gives the queue run slots of limit places in all, built
// from the jobs running now (store.RunSlotJobs), or drops them for no
// limit.
func (t *tx) SetQueueLimit(_ context.Context, name string, limit int) error {
	if err := store.ValidateQueueLimit(name, limit); err != nil {
		return err
	}
	if err := t.editQueue("limit", name, store.LimitEdit(limit)); err != nil {
		return err
	}
	t.setRunSlots(name, store.RunSlotJobs(t.s.runningInQueue(name), store.RunSlotPlacesIn(limit, t.s.maxRunSlots)))
	return nil
}

// runningInQueue returns the ids of the queue's running rows, sorted.
func (s *Store) runningInQueue(name string) []ulid.ULID {
	var ids []ulid.ULID
	for _, running := range s.running {
		for _, id := range running {
			if s.jobs[id].Queue == name {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	return ids
}

// setRunSlots records and applies a write of a queue's run slots.
func (t *tx) setRunSlots(name string, jobs [][]ulid.ULID) {
	if !slices.ContainsFunc(t.runSlots, func(b runSlotsBefore) bool { return b.name == name }) {
		t.runSlots = append(t.runSlots, runSlotsBefore{name, t.s.runSlots[name]})
	}
	t.s.writeRunSlots(name, jobs)
}

// writeRunSlots stores a queue's run slots (none: deletes them). The
// slices are never changed in place: a write stores new ones, so that the
// rollback's copy stays as it was.
func (s *Store) writeRunSlots(name string, jobs [][]ulid.ULID) {
	if len(jobs) == 0 {
		delete(s.runSlots, name)
		return
	}
	s.runSlots[name] = jobs
}

// runningOfSlot returns the jobs of a run slot that are still running.
func (s *Store) runningOfSlot(jobs []ulid.ULID) []ulid.ULID {
	var running []ulid.ULID
	for _, id := range jobs {
		if j := s.jobs[id]; j != nil && j.Status == store.Running {
			running = append(running, id)
		}
	}
	return running
}

// slotPlaces returns the places of each run slot of a limited queue (the
// planted bug gives every slot the first one's).
func (s *Store) slotPlaces(name string) []int {
	places := store.RunSlotPlacesIn(s.queues[name].Limit, s.maxRunSlots)
	if mutant.On(mutant.RunSlotPlacesEven) {
		for i := range places {
			places[i] = places[0]
		}
	}
	return places
}

// SetMaxRunSlots bounds a limited queue's run slots to n instead of
// store.MaxRunSlots, for the limits set after it (call it before any):
// with a handful, the small limits the simulator draws give slots several
// places, which in production only limits above store.MaxRunSlots do.
func (s *Store) SetMaxRunSlots(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxRunSlots = max(n, 1)
}

// freeRunSlots counts the free places of a limited queue's run slots.
func (s *Store) freeRunSlots(name string) int {
	n, places := 0, s.slotPlaces(name)
	for i, jobs := range s.runSlots[name] {
		n += max(0, places[i]-len(s.runningOfSlot(jobs)))
	}
	return n
}

// takeRunSlot gives job, just reserved, a free place in the first run slot
// of its queue that has one; the slot keeps its jobs still running.
// Reserve calls it once per job of a limited queue it starts, after
// openQueues counted the free places (the planted bug counts otherwise and
// takes none).
func (t *tx) takeRunSlot(name string, job ulid.ULID) {
	slots := t.s.runSlots[name]
	if len(slots) == 0 || mutant.On(mutant.LimitPerWorker) {
		return
	}
	places := t.s.slotPlaces(name)
	for i, jobs := range slots {
		running := t.s.runningOfSlot(jobs)
		if len(running) < places[i] {
			slots = slices.Clone(slots)
			slots[i] = append(running, job)
			t.setRunSlots(name, slots)
			return
		}
	}
}
