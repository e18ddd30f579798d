package mem

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueDeadLetter sets the queue's dead-letter queue ("" clears it).
func (t *tx) SetQueueDeadLetter(_ context.Context, name, dead string) error {
	if err := rules.ValidateDeadLetter(name, dead); err != nil {
		return err
	}
	return t.editQueue("dead-letter", name, rules.DeadLetterEdit(dead))
}

// DeadLetterJob moves a row that failed for good to its queue's
// dead-letter queue, if it has one.
func (t *tx) DeadLetterJob(_ context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	j, ok := t.s.jobs[id]
	if !ok {
		return store.Job{}, fmt.Errorf("dead-letter job %s: %w", id, store.ErrNotFound)
	}
	if err := rules.CheckDeadLetter(*j); err != nil {
		return store.Job{}, err
	}
	q := t.s.queues[j.Queue]
	if j.DeadFrom != "" || q == nil || q.DeadLetter == "" {
		return export(j), nil
	}
	moved := *j
	moved.Queue, moved.DeadFrom = q.DeadLetter, j.Queue
	t.setJob(j, &moved)
	return export(t.s.jobs[id]), nil
}
