package mem

import (
	"context"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueKeyLimit sets the queue's per-key limit (0: none). Reserve
// counts the queue's running jobs of each key against it (keyRoomOf).
func (t *tx) SetQueueKeyLimit(_ context.Context, name string, limit int) error {
	if err := rules.ValidateQueueKeyLimit(name, limit); err != nil {
		return err
	}
	return t.editQueue("per-key limit", name, rules.KeyLimitEdit(limit))
}

// keyRoom is what one reservation knows of a queue's per-key limit: the
// limit and how many of the queue's jobs of each key run, those it took
// itself included.
type keyRoom struct {
	limit   int
	running map[string]int
}

// keyRoomOf counts the running jobs of q by key when q has a per-key
// limit (nil otherwise, at no cost). Running rows are bounded by the
// workers' concurrency, so the count reads few rows whatever the backlog.
// The count is the store's, kept per queue and reused by the next
// reservation: a reservation opens each queue once.
func (s *Store) keyRoomOf(q *store.Queue) *keyRoom {
	if q.KeyLimit == 0 {
		return nil
	}
	k := s.keyRooms[q.Name]
	if k == nil {
		if s.keyRooms == nil {
			s.keyRooms = map[string]*keyRoom{}
		}
		k = &keyRoom{running: map[string]int{}}
		s.keyRooms[q.Name] = k
	}
	k.limit = q.KeyLimit
	clear(k.running)
	for _, ids := range s.running {
		for _, id := range ids {
			if j := s.jobs[id]; j.Queue == q.Name && j.PartitionKey != "" {
				k.running[j.PartitionKey]++
			}
		}
	}
	return k
}

// keyHeld reports whether a job of key must wait for its key's limit.
// A job without a key is bound by the queue's limit alone.
func (q *openQueue) keyHeld(key string) bool {
	return q.keys != nil && key != "" && q.keys.running[key] >= q.keys.limit
}

// keyTaken counts a job of key the reservation took.
func (q *openQueue) keyTaken(key string) {
	if q.keys != nil && key != "" && !mutant.On(mutant.KeyLimitUncounted) {
		q.keys.running[key]++
	}
}
