package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Both stores settle a waiting job with Settle, from the current rows of
// its parents, so that they decide alike: at insert (parents that already
// ended), when a parent completes or is cancelled, and in the leader's
// SettleWaitingJobs.

// UnknownParent is InsertJobs's error for a parent id that names no row
// and no earlier job of the batch: it names both and wraps ErrInvalid.
func UnknownParent(child, parent ulid.ULID) error {
	return fmt.Errorf("insert job %s: parent %s does not exist: %w", child, parent, store.ErrInvalid)
}

// NextOf reports the row that took p's place when p is a failed, lost or
// snoozed row with a next attempt: a child waits for the job's current
// attempt.
func NextOf(p store.Job) (ulid.ULID, bool) {
	return p.NextAttemptID, p.NextAttemptID != (ulid.ULID{})
}

// endedBadly reports whether parent p (its current row) ended without
// completing: cancelled, or failed or lost with no next attempt.
func endedBadly(p store.Job) bool {
	if _, ok := NextOf(p); ok {
		return false
	}
	if mutant.On(mutant.SettleSkipsFailed) {
		return p.Status == store.Cancelled
	}
	return p.Status == store.Cancelled || p.Status == store.Failed || p.Status == store.Lost
}

// CancelReason is the failed_reason of a job cancelled because parent p
// ended without completing.
func CancelReason(p store.Job) string {
	return fmt.Sprintf("parent %s %s", p.ID, p.Status)
}

// Settle returns the row child (waiting) becomes given its parents'
// current rows (current looks one up; false: gone, which counts as ended
// badly), and whether it changed. Completed parents are dropped; a parent
// that ended badly cancels the child at now, naming the first such
// parent, or is dropped when the child runs anyway; a parent with a next
// attempt is replaced by it, in place. A child left with no parent leaves
// Waiting as a new job would, available or scheduled by its scheduled_at.
func Settle(child store.Job, current func(ulid.ULID) (store.Job, bool), now time.Time) (store.Job, bool) {
	var left []ulid.ULID
	for _, id := range child.Parents {
		p, ok := current(id)
		for ok {
			next, more := NextOf(p)
			if !more {
				break
			}
			p, ok = current(next)
		}
		if !ok {
			p = store.Job{ID: id, Status: "deleted"}
		}
		bad := !ok || endedBadly(p)
		switch {
		case bad && !child.RunAnyway:
			return cancelled(child, CancelReason(p), now), true
		case bad || p.Status == store.Completed:
		case !slices.Contains(left, p.ID): // two attempts of one job given
			left = append(left, p.ID)
		}
	}
	if slices.Equal(left, child.Parents) {
		return child, false
	}
	if child.Parents = left; len(left) == 0 {
		child.Parents = nil
		child.Status = Released(child.ScheduledAt, now)
	}
	return child, true
}

// Released is the status of a job that stops waiting at now: scheduled
// while its scheduled_at is later, else available.
func Released(scheduledAt, now time.Time) store.Status {
	if scheduledAt.After(now) {
		return store.Scheduled
	}
	return store.Available
}

// cancelled is child cancelled at now with reason.
func cancelled(child store.Job, reason string, now time.Time) store.Job {
	child.Status, child.CancelledAt, child.FailedReason, child.Parents = store.Cancelled, now, reason, nil
	return child
}

// Leaves reports whether a row that was before leaves Waiting as after:
// its parents no longer wait for it.
func Leaves(before, after store.Job) bool {
	return before.Status == store.Waiting && after.Status != store.Waiting
}

// DropParents returns child (waiting) without the parents among done,
// which completed at now, and whether it changed: the settling a parent's
// completion does in its own transaction. Only the leader's
// SettleWaitingJobs (Settle) looks at the child's other parents. store/pg
// does the same in release_children (migration 0025), which its
// completion statement calls.
func DropParents(child store.Job, done func(ulid.ULID) bool, now time.Time) (store.Job, bool) {
	left := slices.DeleteFunc(slices.Clone(child.Parents), done)
	if len(left) == len(child.Parents) {
		return child, false
	}
	if mutant.On(mutant.ParentDoneEarly) {
		left = nil
	}
	if child.Parents = left; len(left) == 0 {
		child.Parents = nil
		child.Status = Released(child.ScheduledAt, now)
	}
	return child, true
}

// Repoint returns child with parent old replaced by next, in place: old
// failed or snoozed and next is the job's next attempt.
func Repoint(child store.Job, old, next ulid.ULID) store.Job {
	child.Parents = slices.Clone(child.Parents)
	for i, p := range child.Parents {
		if p == old {
			child.Parents[i] = next
		}
	}
	return child
}
