package mem

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// batchBefore is a batches row before a transaction first wrote it (nil:
// absent).
type batchBefore struct {
	id    ulid.ULID
	batch *store.Batch
}

// indexUncounted keeps uncounted = the member rows that ended for good
// and that their batch has not counted (rules.Uncounted).
func (s *Store) indexUncounted(id ulid.ULID, before, after *store.Job) {
	if before != nil && rules.Uncounted(before) {
		delete(s.uncounted, id)
	}
	if after != nil && rules.Uncounted(after) {
		s.uncounted[id] = true
	}
}

// writeBatch replaces batches row id with b (nil: delete).
func (s *Store) writeBatch(id ulid.ULID, b *store.Batch) {
	if b == nil {
		delete(s.batches, id)
		return
	}
	s.batches[id] = b
}

// setBatch records and applies one batches row write; the row written is
// never changed in place, so that the rollback's copy stays as it was.
func (t *tx) setBatch(id ulid.ULID, after *store.Batch) {
	if !slices.ContainsFunc(t.batchesBefore, func(b batchBefore) bool { return b.id == id }) {
		t.batchesBefore = append(t.batchesBefore, batchBefore{id, t.s.batches[id]})
	}
	t.s.writeBatch(id, after)
}

// makeBatch gives a callback about to be inserted its batches row and
// its status: it waits for the members of jobs that name it.
func (t *tx) makeBatch(j *store.Job, jobs []store.NewJob) {
	members := 0
	for _, nj := range jobs {
		if nj.Batch == j.ID {
			members++
		}
	}
	j.CallbackOf, j.Status = j.ID, store.Waiting
	t.setBatch(j.ID, &store.Batch{ID: j.ID, Members: members})
}

// settleBatches counts, in id order, the members that ended for good
// since the last pass, then releases, in id order, the waiting callbacks
// of the batches they filled, and returns the released rows by id.
func (t *tx) settleBatches(changed map[ulid.ULID]*store.Job) {
	if len(t.s.uncounted) == 0 { // every pass of a store without batches
		return
	}
	filled := map[ulid.ULID]bool{}
	for _, id := range slices.SortedFunc(maps.Keys(t.s.uncounted), ulid.ULID.Compare) {
		j := t.s.jobs[id]
		after := *j
		after.BatchCounted = true
		t.setJob(j, &after)
		if b, ok := t.s.batches[j.Batch]; ok {
			counted := rules.Count(*b, *j)
			t.setBatch(b.ID, &counted)
			filled[b.ID] = rules.Full(counted)
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(filled), ulid.ULID.Compare) {
		cb := t.s.jobs[id]
		if !filled[id] || cb == nil || cb.Status != store.Waiting {
			continue
		}
		after := *cb
		after.Status = rules.Released(cb.ScheduledAt, t.now)
		t.setJob(cb, &after)
		t.released = append(t.released, id)
		changed[id] = &after
	}
}

// deleteBatches deletes the batches of callbacks, whose rows the
// deletion of gone took, that have no row left: a later attempt of a
// callback reads its batch when it runs.
func (t *tx) deleteBatches(gone map[ulid.ULID]bool, callbacks []ulid.ULID) {
	if len(t.s.batches) == 0 {
		return // no batch: the retention pass sorts nothing
	}
	slices.SortFunc(callbacks, ulid.ULID.Compare)
	for _, id := range slices.Compact(callbacks) {
		if t.s.callbackRows[id] > 0 && !(mutant.On(mutant.BatchGoneWithFirstAttempt) && gone[id]) {
			continue
		}
		if _, ok := t.s.batches[id]; ok {
			t.setBatch(id, nil)
		}
	}
}

// GetBatch returns a copy of batches row id.
func (t *tx) GetBatch(_ context.Context, id ulid.ULID) (store.Batch, error) {
	if err := t.check(); err != nil {
		return store.Batch{}, err
	}
	b, ok := t.s.batches[id]
	if !ok {
		return store.Batch{}, fmt.Errorf("get batch %s: %w", id, store.ErrNotFound)
	}
	out := *b
	out.FailedIDs = slices.Clone(b.FailedIDs)
	return out, nil
}
