package mem

import (
	"context"
	"maps"
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// indexParents keeps childrenOf[parent] = the sorted ids of the waiting
// rows that wait for parent.
func (s *Store) indexParents(id ulid.ULID, before, after *store.Job) {
	if status(before) == store.Waiting {
		for _, p := range before.Parents {
			if ids := removeID(s.childrenOf[p], id); len(ids) == 0 {
				delete(s.childrenOf, p)
			} else {
				s.childrenOf[p] = ids
			}
		}
	}
	if status(after) == store.Waiting {
		for _, p := range after.Parents {
			s.childrenOf[p] = insertID(s.childrenOf[p], id)
		}
	}
}

// lookup is rules.Settle's view of the rows.
func (s *Store) lookup(id ulid.ULID) (store.Job, bool) {
	j, ok := s.jobs[id]
	if !ok {
		return store.Job{}, false
	}
	return *j, true
}

// checkParents refuses a batch with a parent that names no row and no
// earlier job of the batch, before anything is written.
func (t *tx) checkParents(jobs []store.NewJob) error {
	var earlier map[ulid.ULID]bool
	for _, nj := range jobs {
		for _, p := range nj.Parents {
			if _, ok := t.s.jobs[p]; !ok && !earlier[p] {
				return rules.UnknownParent(nj.ID, p)
			}
		}
		if earlier == nil {
			earlier = map[ulid.ULID]bool{}
		}
		earlier[nj.ID] = true
	}
	return nil
}

// waitForParents makes the new row j wait for nj's parents, a batch job
// that was a duplicate standing for the row it duplicated (alias), and
// settles it at once against parents that already ended.
func (t *tx) waitForParents(j *store.Job, nj store.NewJob, alias map[ulid.ULID]ulid.ULID) {
	if len(nj.Parents) == 0 {
		return
	}
	j.Parents = make([]ulid.ULID, 0, len(nj.Parents))
	for _, p := range nj.Parents {
		if a, ok := alias[p]; ok {
			p = a
		}
		if !slices.Contains(j.Parents, p) {
			j.Parents = append(j.Parents, p)
		}
	}
	j.Status, j.RunAnyway = store.Waiting, nj.RunAnyway
	*j, _ = rules.Settle(*j, t.s.lookup, t.now)
}

// releaseChildren drops parents, which just completed and have children,
// from the rows waiting for them.
func (t *tx) releaseChildren(parents []ulid.ULID) {
	if len(parents) == 0 {
		return
	}
	isDone := func(id ulid.ULID) bool { return slices.Contains(parents, id) }
	for _, id := range t.s.childrenOfAll(parents) {
		j := t.s.jobs[id]
		if after, changed := rules.DropParents(*j, isDone, t.now); changed {
			t.setJob(j, &after)
			t.released = append(t.released, id)
		}
	}
}

// repointChildren moves the rows waiting for old to next, its next row.
func (t *tx) repointChildren(old, next ulid.ULID) {
	for _, id := range slices.Clone(t.s.childrenOf[old]) {
		j := t.s.jobs[id]
		after := rules.Repoint(*j, old, next)
		t.setJob(j, &after)
	}
}

// settleFrom settles, round by round, the rows waiting for the given
// ended parents, then those waiting for the rows it cancelled, and returns
// the rows it changed by id. Rounds, each in id order, make store/pg's
// statements and this loop decide alike.
func (t *tx) settleFrom(parents []ulid.ULID, changed map[ulid.ULID]*store.Job) {
	for len(parents) > 0 {
		var next []ulid.ULID
		for _, id := range t.s.childrenOfAll(parents) {
			j := t.s.jobs[id]
			after, ok := rules.Settle(*j, t.s.lookup, t.now)
			if !ok {
				continue
			}
			t.setJob(j, &after)
			t.released = append(t.released, id)
			changed[id] = &after
			if after.Status == store.Cancelled {
				next = append(next, id)
			}
		}
		parents = next
	}
}

// childrenOfAll returns the ids of the rows waiting for any of parents,
// sorted, each once.
func (s *Store) childrenOfAll(parents []ulid.ULID) []ulid.ULID {
	var ids []ulid.ULID
	for _, p := range parents {
		ids = append(ids, s.childrenOf[p]...)
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	return slices.Compact(ids)
}

// SettleWaitingJobs settles the rows waiting for a parent whose row ended
// (or is gone), in rounds from those parents in id order.
func (t *tx) SettleWaitingJobs(context.Context) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if len(t.s.awaited) > 0 {
		defer t.clearEndedMarks()
	}
	if len(t.s.childrenOf) == 0 && len(t.s.uncounted) == 0 {
		return nil, nil // nothing waits nor is to count: the common case, at every leader pass
	}
	var ended []ulid.ULID
	for p := range t.s.childrenOf {
		if j, ok := t.s.jobs[p]; !ok || j.Status.Terminal() {
			ended = append(ended, p)
		}
	}
	slices.SortFunc(ended, ulid.ULID.Compare)
	changed := map[ulid.ULID]*store.Job{}
	t.settleFrom(ended, changed)
	t.settleBatches(changed)
	out := make([]store.Job, 0, len(changed))
	for _, id := range slices.SortedFunc(maps.Keys(changed), ulid.ULID.Compare) {
		out = append(out, export(changed[id]))
	}
	return out, nil
}

// notifyReleased notifies, as the transaction commits, the queues of the
// rows it took out of Waiting that are still available (not reserved in
// the same transaction), in queue order.
func (t *tx) notifyReleased() {
	var queues []string
	for _, id := range t.released {
		if j := t.s.jobs[id]; j != nil && j.Status == store.Available {
			queues = append(queues, j.Queue)
		}
	}
	slices.Sort(queues)
	t.notifyQueues(slices.Compact(queues))
}
