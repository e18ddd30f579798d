package store

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Queue is one row of the queues table: an operator's controls on a queue.
// A queue that is neither paused nor limited has no row, so that reserving
// from it reads and locks nothing more than before queues had controls.
type Queue struct {
	Name     string
	PausedAt time.Time // zero: not paused
	// Limit is the most jobs of the queue running at once across every
	// worker; 0: no limit.
	Limit int
	// Rate is the most starts of the queue's jobs in any window of
	// RatePeriod of store time, across every worker; 0: no rate (and a
	// zero RatePeriod).
	Rate       int
	RatePeriod time.Duration
}

// QueueStats is one line of ListQueues: a queue's controls and how many of
// its rows are in each status (statuses with none are absent).
type QueueStats struct {
	Queue
	Counts map[Status]int
}

// Queues manages the queues table.
type Queues interface {
	// PauseQueue stops every Reserve that begins after the pause commits
	// from taking jobs of name; running jobs and enqueues go on. Pausing a
	// paused queue keeps its first PausedAt.
	PauseQueue(ctx context.Context, name string) error
	// ResumeQueue lets Reserve take jobs of name again; a no-op for a
	// queue that is not paused.
	ResumeQueue(ctx context.Context, name string) error
	// SetQueueLimit bounds how many jobs of name run at once across every
	// worker; 0 removes the bound. Reserve takes at most the limit less
	// the queue's running jobs, counted so that no number of workers takes
	// it past the limit (store/pg: reservations that add running jobs count
	// one after another, a job pass that replaces jobs it completed need
	// not). A limit below what already runs stops new reservations until
	// fewer than the limit run.
	SetQueueLimit(ctx context.Context, name string, limit int) error
	// SetQueueRate bounds how many jobs of name start in any window of
	// period of store time across every worker to n; n = 0 removes the
	// bound. Reserve admits each start through one of n rate slots, each
	// holding the store time of the last start it admitted and admitting
	// another once period has passed since, so that no window of period
	// holds more than n starts. A new rate keeps the n latest starts of
	// the old one's slots: lowering it cannot admit a burst.
	SetQueueRate(ctx context.Context, name string, n int, period time.Duration) error
	// ListQueues returns every queue that has a row or a job, in name
	// order, with its row counts by status.
	ListQueues(ctx context.Context) ([]QueueStats, error)
}

// MaxQueueLimit is the largest limit SetQueueLimit accepts.
const MaxQueueLimit = 1 << 30

// ValidateQueueLimit returns an error wrapping ErrInvalid unless name is a
// valid queue name and limit lies between 0 and MaxQueueLimit, the same in
// every store.
func ValidateQueueLimit(name string, limit int) error {
	if err := CheckName("queue", name); err != nil {
		return fmt.Errorf("set the limit of a queue: %w", err)
	}
	if limit < 0 || limit > MaxQueueLimit {
		return fmt.Errorf("set the limit of queue %q to %d: must be 0 (none) to %d: %w", name, limit, MaxQueueLimit, ErrInvalid)
	}
	return nil
}

// MaxQueueRate is the largest number of starts per period SetQueueRate
// accepts: a rate keeps one slot per start (store/pg: a row).
const MaxQueueRate = 100_000

// MinRatePeriod and MaxRatePeriod bound a rate's period.
const (
	MinRatePeriod = time.Millisecond
	MaxRatePeriod = 7 * 24 * time.Hour
)

// ValidateQueueRate returns an error wrapping ErrInvalid unless name is a
// valid queue name, n lies between 0 and MaxQueueRate and, for n > 0,
// period between MinRatePeriod and MaxRatePeriod, the same in every store.
func ValidateQueueRate(name string, n int, period time.Duration) error {
	if err := CheckName("queue", name); err != nil {
		return fmt.Errorf("set the rate of a queue: %w", err)
	}
	if n < 0 || n > MaxQueueRate {
		return fmt.Errorf("set the rate of queue %q to %d per %s: the count must be 0 (none) to %d: %w", name, n, period, MaxQueueRate, ErrInvalid)
	}
	if n > 0 && (period < MinRatePeriod || period > MaxRatePeriod) {
		return fmt.Errorf("set the rate of queue %q to %d per %s: the period must be %s to %s: %w", name, n, period, MinRatePeriod, MaxRatePeriod, ErrInvalid)
	}
	return nil
}

// QueueChange is one write of a queues row (nil for absent).
type QueueChange struct{ Before, After *Queue }

// Name returns the name of the queue whose row changed.
func (c QueueChange) Name() string {
	if c.After != nil {
		return c.After.Name
	}
	return c.Before.Name
}

// Wakes reports whether the change lets reservations take more of the
// queue's jobs than before: a resume, or a limit raised or removed while
// the queue is not paused. Waiting jobs then became reservable with no row
// of theirs written, so every store notifies the queue's available channel
// in the change's transaction; a worker waiting on notifications would
// otherwise leave them until its next poll.
func (c QueueChange) Wakes() bool { return room(c.After) > room(c.Before) }

// room is how many of a queue's jobs may run at once under row q (nil: no
// row, no bound).
func room(q *Queue) int {
	switch {
	case q != nil && !q.PausedAt.IsZero():
		return 0
	case q != nil && q.Limit > 0:
		return q.Limit
	}
	return math.MaxInt
}

// Controlled reports whether q needs a row: it is paused or limited.
func (q Queue) Controlled() bool { return !q.PausedAt.IsZero() || q.Limit > 0 || q.Rate > 0 }

// EditQueue returns the row a queue has after edit is applied to a copy of
// before (an empty row named name when nil), so that every store decides
// alike: nil when the row no longer controls anything, and changed false
// when nothing is to be written.
func EditQueue(before *Queue, name string, edit func(*Queue)) (after *Queue, changed bool) {
	after = &Queue{Name: name}
	if before != nil {
		*after = *before
	}
	edit(after)
	switch {
	case !after.Controlled():
		return nil, before != nil
	case before != nil && *before == *after:
		return before, false
	}
	return after, true
}

// PauseEdit, ResumeEdit, LimitEdit and RateEdit are the edits of
// PauseQueue, ResumeQueue, SetQueueLimit and SetQueueRate at store time
// now.
func PauseEdit(now time.Time) func(*Queue) {
	return func(q *Queue) {
		if q.PausedAt.IsZero() {
			q.PausedAt = now
		}
	}
}

// ResumeEdit: see PauseEdit.
func ResumeEdit(q *Queue) { q.PausedAt = time.Time{} }

// LimitEdit: see PauseEdit.
func LimitEdit(limit int) func(*Queue) { return func(q *Queue) { q.Limit = limit } }

// RateEdit: see PauseEdit. The period is kept to the microsecond, as store
// times are; no rate has a zero period.
func RateEdit(n int, period time.Duration) func(*Queue) {
	return func(q *Queue) {
		q.Rate, q.RatePeriod = n, period.Truncate(time.Microsecond)
		if n == 0 {
			q.RatePeriod = 0
		}
	}
}
