package mem

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// writeWorker stores w as the row id (nil deletes it).
func (s *Store) writeWorker(id ulid.ULID, w *store.Worker) {
	if w == nil {
		delete(s.workers, id)
		return
	}
	s.workers[id] = w
}

// liveWorker returns the row of a worker that exists and is not shut down.
func (s *Store) liveWorker(id ulid.ULID) (*store.Worker, bool) {
	w, ok := s.workers[id]
	if !ok || !w.ShutdownAt.IsZero() {
		return nil, false
	}
	return w, true
}

func (t *tx) RegisterWorker(_ context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	if _, ok := t.s.workers[id]; ok {
		return fmt.Errorf("register worker %s: %w", id, store.ErrConflict)
	}
	t.setWorker(nil, &store.Worker{ID: id, RegisteredAt: t.now, LastSeenAt: t.now})
	return nil
}

func (t *tx) Heartbeat(_ context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	w, ok := t.s.liveWorker(id)
	if !ok {
		return fmt.Errorf("heartbeat of worker %s: no live worker: %w", id, store.ErrNotFound)
	}
	if mutant.On(mutant.HeartbeatDropped) {
		return nil
	}
	after := *w
	after.LastSeenAt = t.now
	t.setWorker(w, &after)
	return nil
}

func (t *tx) ShutdownWorker(_ context.Context, id ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	w, ok := t.s.workers[id]
	if !ok {
		return fmt.Errorf("shut down worker %s: %w", id, store.ErrNotFound)
	}
	if w.ShutdownAt.IsZero() {
		t.shutdown(w)
	}
	return nil
}

func (t *tx) shutdown(w *store.Worker) {
	after := *w
	after.ShutdownAt = t.now
	t.setWorker(w, &after)
}

func (t *tx) ShutdownDeadWorkers(_ context.Context, threshold time.Duration) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	cutoff := t.now.Add(-threshold.Truncate(time.Microsecond))
	var dead []ulid.ULID
	for id, w := range t.s.workers {
		if w.ShutdownAt.IsZero() && w.LastSeenAt.Before(cutoff) {
			dead = append(dead, id)
		}
	}
	slices.SortFunc(dead, ulid.ULID.Compare)
	if mutant.On(mutant.DeadWorkersOneAPass) && len(dead) > 1 {
		dead = dead[:1]
	}
	for _, id := range dead {
		t.shutdown(t.s.workers[id])
	}
	return dead, nil
}

func (t *tx) ListWorkers(context.Context) ([]store.Worker, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	out := make([]store.Worker, 0, len(t.s.workers))
	for _, w := range t.s.workers {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b store.Worker) int { return a.ID.Compare(b.ID) })
	return out, nil
}

// DeleteOldWorkers deletes the workers shut down before now − age in id
// order; their running jobs then have started_by NULL, written after the
// deletions in job id order. Finished jobs keep the id of the worker that
// ran them, as in store/pg, where finding them would read every job the
// worker ran.
func (t *tx) DeleteOldWorkers(_ context.Context, age time.Duration) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	cutoff := t.now.Add(-age.Truncate(time.Microsecond))
	if mutant.On(mutant.WorkerRetentionHalved) {
		cutoff = t.now.Add(-age.Truncate(time.Microsecond) / 2)
	}
	var ids []ulid.ULID
	for id, w := range t.s.workers {
		if !w.ShutdownAt.IsZero() && w.ShutdownAt.Before(cutoff) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	if mutant.On(mutant.WorkerRetentionOneAPass) {
		ids = ids[:1]
	}
	for _, id := range ids {
		t.setWorker(t.s.workers[id], nil)
	}
	t.clearStartedBy(ids)
	return len(ids), nil
}

// clearStartedBy sets started_by to NULL on the running jobs of the
// deleted workers, found through the index of running jobs by worker.
func (t *tx) clearStartedBy(gone []ulid.ULID) {
	var ids []ulid.ULID
	for _, w := range gone {
		ids = append(ids, t.s.running[w]...)
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	for _, id := range ids {
		j := t.s.jobs[id]
		after := *j
		after.StartedBy = ulid.ULID{}
		t.setJob(j, &after)
	}
}
