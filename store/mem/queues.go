package mem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

func (t *tx) PauseQueue(_ context.Context, name string) error {
	return t.editQueue("pause", name, rules.PauseEdit(t.now))
}

func (t *tx) ResumeQueue(_ context.Context, name string) error {
	return t.editQueue("resume", name, rules.ResumeEdit)
}

func (t *tx) PauseAll(context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	t.writeEdit(store.AllQueues, rules.PauseEdit(t.now))
	return nil
}

func (t *tx) ResumeAll(context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	t.writeEdit(store.AllQueues, rules.ResumeEdit)
	return nil
}

func (t *tx) PausedAll(context.Context) (time.Time, error) {
	if err := t.check(); err != nil {
		return time.Time{}, err
	}
	return t.s.pausedAll(), nil
}

// pausedAll is when PauseAll took effect (zero: not paused).
func (s *Store) pausedAll() time.Time {
	if q := s.queues[store.AllQueues]; q != nil {
		return q.PausedAt
	}
	return time.Time{}
}

// editQueue writes the queue's row as rules.EditQueue decides.
func (t *tx) editQueue(what, name string, edit func(*store.Queue)) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := names.Check("queue", name); err != nil {
		return fmt.Errorf("%s queue: %w", what, err)
	}
	t.writeEdit(name, edit)
	return nil
}

// writeEdit writes row name as rules.EditQueue decides, recording the
// change and notifying when it wakes the queue (AllQueues: every queue).
func (t *tx) writeEdit(name string, edit func(*store.Queue)) {
	before := t.s.queues[name]
	after, changed := rules.EditQueue(before, name, edit)
	if !changed {
		return
	}
	ch := store.QueueChange{Before: before, After: after}
	t.queues = append(t.queues, ch)
	t.s.writeQueue(name, after)
	if ch.Wakes() {
		t.notifyQueues([]string{name})
	}
}

// writeQueue stores the queue's row (nil: deletes it).
func (s *Store) writeQueue(name string, q *store.Queue) {
	if q == nil {
		delete(s.queues, name)
		return
	}
	s.queues[name] = q
}

// ListQueues counts every row: an operator's command, not a job path.
func (t *tx) ListQueues(context.Context) ([]store.QueueStats, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	byName := map[string]*store.QueueStats{}
	stats := func(name string) *store.QueueStats {
		qs := byName[name]
		if qs == nil {
			qs = &store.QueueStats{Queue: store.Queue{Name: name}, Counts: map[store.Status]int{}}
			byName[name] = qs
		}
		return qs
	}
	for name, q := range t.s.queues {
		if name != store.AllQueues {
			stats(name).Queue = *q
		}
	}
	for _, j := range t.s.jobs {
		stats(j.Queue).Counts[j.Status]++
	}
	out := make([]store.QueueStats, 0, len(byName))
	for _, qs := range byName {
		out = append(out, *qs)
	}
	slices.SortFunc(out, func(a, b store.QueueStats) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
