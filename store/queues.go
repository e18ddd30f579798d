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
	// KeyLimit is the most jobs of the queue with the same partition key
	// (Job.PartitionKey) running at once across every worker; 0: none.
	// Jobs without a key are bound by Limit alone.
	KeyLimit int
	// Rate is the most starts of the queue's jobs in any window of
	// RatePeriod of store time, across every worker; 0: no rate (and a
	// zero RatePeriod).
	Rate       int
	RatePeriod time.Duration
	// DeadLetter is the queue the queue's jobs move to when they fail for
	// good (Jobs.DeadLetterJob); "": none, they stay failed in place.
	DeadLetter string
	// NoHistory: a job of the queue that completes is deleted by the
	// completion instead of being kept as completed for retention, when
	// nothing else keeps it (rules.DeletesAtCompletion); false, the
	// default: completed rows are kept.
	NoHistory bool
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
	// SetQueueKeyLimit bounds how many jobs of name with the same partition
	// key run at once across every worker; 0 removes the bound. It holds
	// together with the queue's limit. Reserve skips over the jobs of a key
	// at its limit and takes those of other keys behind them in
	// reservation order, so one key's backlog does not hold up the others.
	SetQueueKeyLimit(ctx context.Context, name string, limit int) error
	// SetQueueRate bounds how many jobs of name start in any window of
	// period of store time across every worker to n; n = 0 removes the
	// bound. Reserve admits each start through one of n rate slots, each
	// holding the store time of the last start it admitted and admitting
	// another once period has passed since, so that no window of period
	// holds more than n starts. A new rate keeps the n latest starts of
	// the old one's slots: lowering it cannot admit a burst.
	SetQueueRate(ctx context.Context, name string, n int, period time.Duration) error
	// SetQueueDeadLetter makes dead the dead-letter queue of name: the
	// jobs of name that fail for good from then on move there
	// (Jobs.DeadLetterJob); "" clears it. ErrInvalid for an invalid name
	// and for a queue dead-lettering to itself.
	SetQueueDeadLetter(ctx context.Context, name, dead string) error
	// SetQueueHistory sets whether the queue keeps its completed rows
	// (keep true, the default) or has each completion delete its row
	// when nothing else keeps it (Queue.NoHistory). It applies to
	// completions that commit after it; rows already completed stay for
	// retention. ErrInvalid for an invalid name.
	SetQueueHistory(ctx context.Context, name string, keep bool) error
	// ListQueues returns every queue that has a row or a job, in name
	// order, with its row counts by status; not the AllQueues row.
	ListQueues(ctx context.Context) ([]QueueStats, error)
	// PauseAll stops every Reserve that begins after it commits from
	// taking jobs of any queue, those created later too, until ResumeAll;
	// running jobs and enqueues go on. It is one row, named AllQueues,
	// whatever the number of queues. Pausing all again keeps the first
	// time; a queue's own pause is kept apart and outlives ResumeAll.
	PauseAll(ctx context.Context) error
	// ResumeAll lifts PauseAll; a no-op when not paused.
	ResumeAll(ctx context.Context) error
	// PausedAll returns when PauseAll took effect (zero: not paused).
	PausedAll(ctx context.Context) (time.Time, error)
}

// AllQueues names the queues row that PauseAll writes: no queue has the
// empty name (names.Check refuses it), and a notification of it tells
// every worker that jobs of any of its queues may be available.
const AllQueues = ""

// MaxQueueLimit is the largest limit SetQueueLimit and SetQueueKeyLimit
// accept.
const MaxQueueLimit = 1 << 30

// MaxQueueRate is the largest number of starts per period SetQueueRate
// accepts: a rate keeps one slot per start (store/pg: a row).
const MaxQueueRate = 100_000

// MinRatePeriod and MaxRatePeriod bound a rate's period.
const (
	MinRatePeriod = time.Millisecond
	MaxRatePeriod = 7 * 24 * time.Hour
)

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
// queue's jobs than before: a resume, or a limit or a per-key limit raised
// or removed while the queue is not paused. Waiting jobs then became reservable with no row
// of theirs written, so every store notifies the queue's available channel
// in the change's transaction; a worker waiting on notifications would
// otherwise leave them until its next poll.
func (c QueueChange) Wakes() bool {
	return room(c.After) > room(c.Before) || room(c.After) > 0 && keyRoom(c.After) > keyRoom(c.Before)
}

// keyRoom is how many of a queue's jobs with one partition key may run at
// once under row q (nil: no row, no bound).
func keyRoom(q *Queue) int {
	if q != nil && q.KeyLimit > 0 {
		return q.KeyLimit
	}
	return math.MaxInt
}

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

// Controlled reports whether q controls reservations: it is paused or
// limited.
func (q Queue) Controlled() bool {
	return !q.PausedAt.IsZero() || q.Limit > 0 || q.Rate > 0 || q.KeyLimit > 0
}

// NeedsRow reports whether q needs a row: it is controlled, has a
// dead-letter queue or keeps no history.
func (q Queue) NeedsRow() bool { return q.Controlled() || q.DeadLetter != "" || q.NoHistory }

// History names a queue's history setting as operators give it: "keep"
// or "none" (HistoryNames).
func (q Queue) History() string {
	if q.NoHistory {
		return HistoryNone
	}
	return HistoryKeep
}

// HistoryKeep and HistoryNone are the names of Queue.NoHistory's two
// settings.
const (
	HistoryKeep = "keep"
	HistoryNone = "none"
)

// ParseHistory returns the keep argument of SetQueueHistory for a setting
// named as Queue.History names it; ErrInvalid for any other name.
func ParseHistory(name string) (keep bool, err error) {
	switch name {
	case HistoryKeep:
		return true, nil
	case HistoryNone:
		return false, nil
	}
	return false, fmt.Errorf("queue history %q: want %s or %s: %w", name, HistoryKeep, HistoryNone, ErrInvalid)
}
