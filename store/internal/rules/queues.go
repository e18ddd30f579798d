package rules

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/store"
)

// EditQueue returns the row a queue has after edit is applied to a copy of
// before (an empty row named name when nil), so that every store decides
// alike: nil when the row no longer controls anything, and changed false
// when nothing is to be written.
func EditQueue(before *store.Queue, name string, edit func(*store.Queue)) (after *store.Queue, changed bool) {
	after = &store.Queue{Name: name}
	if before != nil {
		*after = *before
	}
	edit(after)
	switch {
	case !after.NeedsRow():
		return nil, before != nil
	case before != nil && *before == *after:
		return before, false
	}
	return after, true
}

// PauseEdit, ResumeEdit, LimitEdit and RateEdit are the edits of
// PauseQueue, ResumeQueue, SetQueueLimit and SetQueueRate at store time
// now.
func PauseEdit(now time.Time) func(*store.Queue) {
	return func(q *store.Queue) {
		if q.PausedAt.IsZero() {
			q.PausedAt = now
		}
	}
}

// ResumeEdit: see PauseEdit.
func ResumeEdit(q *store.Queue) { q.PausedAt = time.Time{} }

// LimitEdit: see PauseEdit.
func LimitEdit(limit int) func(*store.Queue) { return func(q *store.Queue) { q.Limit = limit } }

// KeyLimitEdit: see PauseEdit.
func KeyLimitEdit(limit int) func(*store.Queue) { return func(q *store.Queue) { q.KeyLimit = limit } }

// RateEdit: see PauseEdit. The period is kept to the microsecond, as store
// times are; no rate has a zero period.
func RateEdit(n int, period time.Duration) func(*store.Queue) {
	return func(q *store.Queue) {
		q.Rate, q.RatePeriod = n, period.Truncate(time.Microsecond)
		if n == 0 {
			q.RatePeriod = 0
		}
	}
}

// DeadLetterEdit: see PauseEdit.
func DeadLetterEdit(dead string) func(*store.Queue) {
	return func(q *store.Queue) { q.DeadLetter = dead }
}

// CheckDeadLetter returns an error wrapping store.ErrConflict unless j
// failed for good (failed or lost, with no next attempt): only such a row
// may move to a dead-letter queue.
func CheckDeadLetter(j store.Job) error {
	switch {
	case j.Status != store.Failed && j.Status != store.Lost:
		return fmt.Errorf("dead-letter job %s: it is %s, not failed or lost: %w", j.ID, j.Status, store.ErrConflict)
	case !j.NextAttemptID.IsZero():
		return fmt.Errorf("dead-letter job %s: it has a next attempt %s: %w", j.ID, j.NextAttemptID, store.ErrConflict)
	}
	return nil
}

// HistoryEdit: see PauseEdit.
func HistoryEdit(keep bool) func(*store.Queue) {
	return func(q *store.Queue) { q.NoHistory = !keep }
}
