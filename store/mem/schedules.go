package mem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

func (s *Store) writeSchedule(name string, sc *store.Schedule) {
	if sc == nil {
		delete(s.schedules, name)
		return
	}
	s.schedules[name] = sc
}

// EnsureSchedules validates every name first (1 to store.MaxQueueNameBytes
// bytes, else ErrInvalid and nothing inserted), then inserts the missing
// ones in the order given.
func (t *tx) EnsureSchedules(_ context.Context, names []string) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := rules.ValidateScheduleNames(names); err != nil {
		return err
	}
	for _, name := range names {
		if _, ok := t.s.schedules[name]; !ok {
			t.setSchedule(nil, &store.Schedule{Name: name})
		}
	}
	return nil
}

func (t *tx) ListSchedules(context.Context) ([]store.Schedule, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	out := make([]store.Schedule, 0, len(t.s.schedules))
	for _, sc := range t.s.schedules {
		out = append(out, *sc)
	}
	slices.SortFunc(out, func(a, b store.Schedule) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// AdvanceSchedule mirrors the foreign key of pg: job must be the zero ULID
// (stored as NULL) or an existing job, else ErrNotFound.
func (t *tx) AdvanceSchedule(_ context.Context, name string, at time.Time, job ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	sc, ok := t.s.schedules[name]
	if !ok {
		return fmt.Errorf("advance schedule %q: %w", name, store.ErrNotFound)
	}
	if _, ok := t.s.jobs[job]; !ok && job != (ulid.ULID{}) {
		return fmt.Errorf("advance schedule %q to job %s: no such job: %w", name, job, store.ErrNotFound)
	}
	t.setSchedule(sc, &store.Schedule{Name: name, LastScheduledAt: rules.Truncate(at), LastScheduledJobID: job})
	return nil
}

// repointSchedules makes every schedule whose last job is from point at to
// instead (the zero ULID for NULL), in name order.
func (t *tx) repointSchedules(from map[ulid.ULID]bool, to ulid.ULID) {
	var names []string
	for name, sc := range t.s.schedules {
		if from[sc.LastScheduledJobID] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		sc := t.s.schedules[name]
		after := *sc
		after.LastScheduledJobID = to
		t.setSchedule(sc, &after)
	}
}
