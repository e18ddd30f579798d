package mem

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// sequences holds, per sequence key, the ids of every row with the key:
// the rows a reservation of one of them must look at (store.Sequence),
// few however large the store.
type sequences map[string]map[ulid.ULID]struct{}

// indexSequence keeps s.sequences and s.seqHolding in step with one row
// change, and undoes what Reserve concluded from the key's front before.
func (s *Store) indexSequence(id ulid.ULID, before, after *store.Job) {
	s.sequences.index(id, before, after, func(*store.Job) bool { return true })
	s.seqHolding.index(id, before, after, func(j *store.Job) bool { return j.HoldsSequence() })
	if before != nil {
		s.frontMoved(before.Sequence.Key)
	}
	if after != nil {
		s.frontMoved(after.Sequence.Key)
	}
}

// frontMoved forgets key's memoised front and puts the entries parked
// behind it back in their heaps: a change to a row of the key is the only
// thing that can let one of them start.
func (s *Store) frontMoved(key string) {
	if key == "" {
		return
	}
	delete(s.seqFronts, key)
	for _, w := range s.parked[key] {
		w.heap.push(w.entry)
	}
	delete(s.parked, key)
}

// park takes w, an available row of sequence key that sequenceHead refused,
// out of Reserve's way until a row of key changes (frontMoved). Pushed
// back after each reservation instead, a sequence's whole backlog was
// popped and pushed again by every one.
func (s *Store) park(key string, w waiting) {
	s.parked[key] = append(s.parked[key], w)
}

// index keeps q in step with one row change: a row is in q under its key
// while keep says so.
func (q sequences) index(id ulid.ULID, before, after *store.Job, keep func(*store.Job) bool) {
	if before != nil && before.Sequence.Key != "" {
		rows := q[before.Sequence.Key]
		delete(rows, id)
		if len(rows) == 0 {
			delete(q, before.Sequence.Key)
		}
	}
	if after != nil && after.Sequence.Key != "" && keep(after) {
		rows := q[after.Sequence.Key]
		if rows == nil {
			rows = map[ulid.ULID]struct{}{}
			q[after.Sequence.Key] = rows
		}
		rows[id] = struct{}{}
	}
}

// lastPos is the highest place any row of key holds (0: none), from which
// an insert numbers its jobs of the key.
func (s *Store) lastPos(key string) int64 {
	var last int64
	for id := range s.sequences[key] {
		last = max(last, s.jobs[id].Sequence.Pos)
	}
	return last
}

// placeInSequences gives each row of a batch with a sequence key its
// place: after the key's last, in batch order, counting the jobs a unique
// key will skip, as store/pg's single INSERT numbers them.
func (t *tx) placeInSequences(rows []*store.Job) {
	var next map[string]int64
	for _, j := range rows {
		key := j.Sequence.Key
		if key == "" {
			continue
		}
		if next == nil {
			next = map[string]int64{}
		}
		if _, ok := next[key]; !ok {
			next[key] = t.s.lastPos(key)
		}
		next[key]++
		j.Sequence.Pos = next[key]
	}
}

// sequenceHead reports whether j, available, may start as far as its
// sequence is concerned: no row of its key runs and none earlier in
// enqueue order holds the sequence (store.Sequence). It reads the key's
// front from s.seqFronts, computing it on first use: every reservation
// skips every waiting job of a sequence, and each look at all the key's
// rows made it quadratic in the sequence's length. The memo lives until a
// row of the key changes (indexSequence), as the front is a function of
// those rows alone.
func (s *Store) sequenceHead(j *store.Job) bool {
	if j.Sequence.Key == "" {
		return true
	}
	f, ok := s.seqFronts[j.Sequence.Key]
	if !ok {
		f = s.sequenceFront(j.Sequence.Key)
		s.seqFronts[j.Sequence.Key] = f
	}
	return !f.running && (f.first == nil || f.first.ID == j.ID || !before(f.first, j))
}

// seqFront is what decides which job of a sequence may start: whether a
// row of the key runs, and the holding row that comes first.
type seqFront struct {
	running bool
	first   *store.Job
}

// sequenceFront reads key's front from its holding rows. The first is the
// least by before, which orders the rows of a key totally: map order
// decides nothing.
func (s *Store) sequenceFront(key string) seqFront {
	var f seqFront
	for id := range s.seqHolding[key] {
		r := s.jobs[id]
		if !holdsSequence(r) {
			continue
		}
		f.running = f.running || r.Status == store.Running
		if f.first == nil || before(r, f.first) {
			f.first = r
		}
	}
	return f
}

// holdsSequence is store.Job.HoldsSequence, with the planted bugs that
// forget a running row or a failed one.
func holdsSequence(r *store.Job) bool {
	switch {
	case r.Status == store.Running && mutant.On(mutant.SequenceRunningUnheld):
		return false
	case r.Halts() && mutant.On(mutant.SequenceHaltIgnored):
		return false
	}
	return r.HoldsSequence()
}

// before reports whether r comes before j in their sequence.
func before(r, j *store.Job) bool {
	if mutant.On(mutant.SequenceByID) {
		return r.ID.Compare(j.ID) < 0
	}
	return r.Sequence.Pos < j.Sequence.Pos
}

// SkipJob releases the sequence a failed or lost job halts.
func (t *tx) SkipJob(_ context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	j, ok := t.s.jobs[id]
	if !ok {
		return store.Job{}, fmt.Errorf("skip job %s: %w", id, store.ErrNotFound)
	}
	if err := rules.CheckSkip(*j); err != nil {
		return store.Job{}, err
	}
	after := *j
	after.Sequence.Skipped = true
	t.setJob(j, &after)
	if head, ok := t.s.head(j.Sequence.Key); ok && head.Status == store.Available {
		// It may start now with no row of its written: wake the workers.
		t.notifyQueues([]string{head.Queue})
	}
	return export(&after), nil
}

// SequenceHead scans the key's rows.
func (t *tx) SequenceHead(_ context.Context, key string) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	head, ok := t.s.head(key)
	if !ok {
		return store.Job{}, fmt.Errorf("head of sequence %q: none holds it: %w", key, store.ErrNotFound)
	}
	return export(head), nil
}

// head returns the row that holds sequence key first, if one does.
func (s *Store) head(key string) (*store.Job, bool) {
	var head *store.Job
	for id := range s.seqHolding[key] {
		r := s.jobs[id]
		if head == nil || r.Sequence.Pos < head.Sequence.Pos {
			head = r
		}
	}
	return head, head != nil
}
