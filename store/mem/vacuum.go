package mem

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// The in-memory store models dead rows as PostgreSQL leaves them, in a way
// a simulation can replay: each committed transaction adds one dead row
// per job row that existed before it and that it updated or deleted
// (however often), and VacuumJobs removes them all, since no transaction
// of this store stays open beside it.

// DeadJobRows returns the dead rows committed transactions left since the
// last VacuumJobs.
func (t *tx) DeadJobRows(context.Context) (int64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	return t.s.deadJobs, nil
}

func (t *tx) LastVacuum(context.Context) (store.Vacuum, error) {
	if err := t.check(); err != nil {
		return store.Vacuum{}, err
	}
	if t.s.vacuum == nil {
		return store.Vacuum{}, fmt.Errorf("last vacuum: %w", store.ErrNotFound)
	}
	return *t.s.vacuum, nil
}

func (t *tx) RecordVacuum(_ context.Context, deadRows int64) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := rules.ValidateDeadRows(deadRows); err != nil {
		return err
	}
	if !t.vacuumWritten {
		t.vacuumBefore, t.vacuumWritten = t.s.vacuum, true
	}
	t.s.vacuum = &store.Vacuum{StartedAt: t.now, DeadRows: deadRows}
	return nil
}

// VacuumJobs removes every dead row, outside any transaction (it waits
// for the one running, as it waits for nothing in PostgreSQL but the
// transactions that can still see the rows).
func (s *Store) VacuumJobs(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("vacuum jobs: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadJobs = 0
	return nil
}

var _ store.Vacuumer = (*Store)(nil)

// countDeadRows adds, as t commits, the dead rows its job writes left.
func (t *tx) countDeadRows() {
	seen := make(map[ulid.ULID]bool, len(t.jobs))
	for _, c := range t.jobs {
		id := c.ID()
		if !seen[id] && c.Before != nil {
			t.s.deadJobs++
		}
		seen[id] = true
	}
}
