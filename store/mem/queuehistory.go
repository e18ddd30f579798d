package mem

import (
	"context"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueHistory sets whether the queue keeps its completed rows.
func (t *tx) SetQueueHistory(_ context.Context, name string, keep bool) error {
	return t.editQueue("history", name, rules.HistoryEdit(keep))
}

// deletesAtCompletion reports whether completing running row j, leaving
// done, deletes it: its queue keeps no history and
// rules.DeletesAtCompletion lets it go, judged on the rows as the
// completion finds them.
func (t *tx) deletesAtCompletion(j *store.Job, done store.Job) bool {
	q := t.s.queues[j.Queue]
	if (q == nil || !q.NoHistory) && !mutant.On(mutant.HistoryIgnored) {
		return false
	}
	k := t.kept(j.ID)
	k.Awaited = k.Awaited || t.s.awaited[j.ID] // store/pg: its awaited mark
	return rules.DeletesAtCompletion(done, k, t.s.scheduleNames(j.ID))
}

// scheduleNames reports whether a schedule names row id as its last run.
func (s *Store) scheduleNames(id ulid.ULID) bool {
	for _, sc := range s.schedules {
		if sc.LastScheduledJobID == id {
			return true
		}
	}
	return false
}
