package store

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Status is the state of one job row (one attempt).
type Status string

// Job statuses. A row starts Scheduled or Available, becomes Running when a
// worker reserves it, and ends in one of the terminal statuses.
const (
	Scheduled Status = "scheduled" // waits for ScheduledAt
	Available Status = "available" // may be reserved
	Running   Status = "running"   // reserved by StartedBy
	Completed Status = "completed" // the handler succeeded
	Failed    Status = "failed"    // the handler failed; see NextAttemptID
	Lost      Status = "lost"      // its worker was declared dead while it ran
	Cancelled Status = "cancelled" // cancelled by an operator
	// Snoozed: its handler asked to run it again later (worker.Snooze);
	// NextAttemptID is the row that does, with the same attempt number.
	Snoozed Status = "snoozed"
	// Waiting: the job waits for its parents (Job.Parents) to complete.
	Waiting Status = "waiting"
)

// Terminal reports whether a row in status s will never run again.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Lost || s == Cancelled || s == Snoozed
}

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool {
	switch s {
	case Scheduled, Available, Running, Completed, Failed, Lost, Cancelled, Snoozed, Waiting:
		return true
	}
	return false
}

// Statuses returns every status, in the order of the unique keys' status
// bits (StatusesOf), then Waiting, which no unique key covers (a job with
// parents has no unique key).
func Statuses() []Status { return append(slices.Clone(statusOrder[:]), Waiting) }

// Job is one attempt of a job, or one run of an attempt that snoozed. Zero
// times and zero ULIDs stand for SQL NULL. A row's run ended at
// CompletedAt when it completed or snoozed, at FailedAt when it failed or
// was lost, at CancelledAt when it was cancelled.
type Job struct {
	ID            ulid.ULID
	Queue         string
	Payload       json.RawMessage
	Metadata      json.RawMessage
	Status        Status
	Attempt       int
	CreatedAt     time.Time
	ScheduledAt   time.Time
	StartedAt     time.Time
	StartedBy     ulid.ULID
	CompletedAt   time.Time
	FailedAt      time.Time
	FailedReason  string
	CancelledAt   time.Time
	NextAttemptID ulid.ULID
	ScheduleName  string
	// UniqueKey is the stored key, "" for none: the given key, "|" and the
	// covered statuses (StatusSet.String) and, with a period, "|" and the
	// window of store time ("2026-01-02T15:00:00Z/1h0m0s"). The row holds
	// it while its status is in UniqueStates.
	UniqueKey    string
	UniqueStates StatusSet
	// Output is what the handler recorded for a completed row; nil: none.
	Output   json.RawMessage
	Priority int // see MaxPriority; retries keep it
	// MaxAttempts is the job's own bound on its runs, 0 for none (the
	// handler's or the worker's bound applies); retries and snoozes keep it.
	MaxAttempts int
	// Snoozes counts the snoozes of the job before this row (worker.Snooze):
	// a snooze's row has one more than the row that snoozed, a retry as many.
	Snoozes int
	// PartitionKey is the job's partition key, "" for none: a queue's
	// per-key limit (Queue.KeyLimit) bounds its running jobs of each key.
	// Retries and snoozes keep it.
	PartitionKey string
	// Sequence places the job in a sequence (sequence.go); zero: none.
	Sequence Sequence
	// Parents are the jobs a waiting row still waits for, each by the id
	// of its current attempt (a retry or a snooze of a parent takes its
	// place): empty once the row no longer waits.
	Parents []ulid.ULID
	// RunAnyway: when a parent fails for good or is cancelled, the job
	// runs once its other parents ended instead of being cancelled.
	RunAnyway bool
	// Batch is the batch the row's job is a member of (batch.go), by the
	// id of the batch's callback job; zero: none. Retries and snoozes keep
	// it, but for a retry of a member whose end was already counted.
	Batch ulid.ULID
	// BatchCounted: the leader counted this member row's end in its batch.
	BatchCounted bool
	// CallbackOf is the batch whose callback the row's job is (the id of
	// the callback's first row); zero: none. Retries and snoozes keep it.
	CallbackOf ulid.ULID
	// DeadFrom is the queue a dead-lettered row failed for good in
	// (DeadLetterJob), "" for none: the row then lives in its queue's
	// dead-letter queue (Queue), and a redrive (ScheduleRetry) sends its
	// next attempt back to DeadFrom.
	DeadFrom string
}

// Job priorities: Reserve takes the smallest number first, then the
// earliest scheduled_at, then the smallest id. 0, the default, is the most
// urgent, as in Oban: rows written before priorities existed behave as
// before, and a job can only be made to wait behind them.
const (
	MinPriority = 0
	MaxPriority = 9
)

// NewJob describes a job to insert. A zero ScheduledAt, or one not after the
// store's now, makes the row Available at once; a later one makes it
// Scheduled. A nil Metadata is stored as {}.
type NewJob struct {
	ID           ulid.ULID
	Queue        string
	Payload      json.RawMessage
	Metadata     json.RawMessage
	ScheduledAt  time.Time
	ScheduleName string
	// UniqueKey, when set, makes the insert a no-op reporting the existing
	// row if a row holds the same stored key (see Job.UniqueKey).
	// UniqueStates are the statuses covered (0: LiveStatuses); a positive
	// UniquePeriod makes the key unique per window of store time.
	UniqueKey    string
	UniqueStates StatusSet
	UniquePeriod time.Duration
	Priority     int // MinPriority to MaxPriority
	// MaxAttempts bounds the job's runs, retries included: 0 (none, the
	// handler's or the worker's bound applies) to MaxJobAttempts.
	MaxAttempts int
	// PartitionKey: see Job.PartitionKey; at most MaxPartitionKeyBytes.
	PartitionKey string
	// SequenceKey and SequenceContinues: see Sequence.Key and
	// Sequence.Continues; a job takes a partition key or a sequence key.
	SequenceKey       string
	SequenceContinues bool
	// Parents are jobs that must complete before this one may run, each by
	// the id of any of its attempts: rows that exist, or jobs earlier in
	// the same batch. The job waits in status Waiting until they all
	// completed; when one fails for good or is cancelled it is cancelled
	// (with a reason naming that parent), or runs anyway with RunAnyway.
	// At most MaxParents; a job with parents has no unique key.
	Parents   []ulid.ULID
	RunAnyway bool
	// Batch makes the job a member of the batch whose callback is the job
	// with this id in the same insert; Callback makes the job a batch's
	// callback, inserted Waiting until every member ended (batch.go).
	Batch    ulid.ULID
	Callback bool
}

// MaxParents is the most parents a job may wait for.
const MaxParents = 100

// MaxPartitionKeyBytes is the longest partition key a job may carry.
const MaxPartitionKeyBytes = 200

// MaxJobAttempts is the largest bound a job may be given on its attempts.
const MaxJobAttempts = 1000

// Worker is one row of the workers table: one worker start.
type Worker struct {
	ID           ulid.ULID
	RegisteredAt time.Time
	LastSeenAt   time.Time
	ShutdownAt   time.Time // zero while alive
}

// Lease is the leader row.
type Lease struct {
	WorkerID  ulid.ULID
	ElectedAt time.Time
	ExpiresAt time.Time
}

// Schedule is one row of the schedules table.
type Schedule struct {
	Name               string
	LastScheduledAt    time.Time // zero: never scheduled
	LastScheduledJobID ulid.ULID // zero: none (or deleted by retention)
}

// JobFilter selects jobs for ListJobs. Zero fields match everything.
// Results are ordered by id, oldest first unless NewestFirst; After pages
// past a previous result in that order.
type JobFilter struct {
	Status Status
	Queue  string
	After  ulid.ULID
	Limit  int // 0 means DefaultListLimit
	// NewestFirst orders by descending id: After then selects older ids.
	NewestFirst bool
	// LastAttempt keeps only rows without a next attempt; with Status
	// Failed, the jobs that failed for good.
	LastAttempt bool
	// NextAttempt keeps only the row whose next attempt is this id: the
	// attempt before it.
	NextAttempt ulid.ULID
	// OlderThan keeps only rows created more than this long before the
	// store's now (the database's clock, not the caller's); 0 keeps all,
	// a negative age is invalid.
	OlderThan time.Duration
	// Text keeps only rows whose payload's JSON text, byte for byte as
	// enqueued, contains it: case-sensitive, so that both stores agree
	// whatever the collation. "" keeps all.
	Text string
}

// Match reports whether j passes f's Status, Queue, LastAttempt,
// NextAttempt, OlderThan (judged at the store's time now) and Text (not
// its order, After or Limit).
func (f JobFilter) Match(j Job, now time.Time) bool {
	return (f.Status == "" || j.Status == f.Status) && (f.Queue == "" || j.Queue == f.Queue) &&
		(!f.LastAttempt || j.NextAttemptID == ulid.ULID{}) && (f.NextAttempt == ulid.ULID{} || j.NextAttemptID == f.NextAttempt) &&
		(f.OlderThan == 0 || j.CreatedAt.Before(now.Add(-f.OlderThan))) && strings.Contains(string(j.Payload), f.Text)
}

// DefaultListLimit is the page size of ListJobs when the filter sets none.
const DefaultListLimit = 100

// Notification is a message on one of the store's channels.
type Notification struct {
	Channel Channel
	Queue   string    // for ChannelAvailable: the queue that has a new job
	Job     ulid.ULID // for ChannelCancel: the running job that was cancelled
}

// Channel names a notification channel. PostgreSQL prefixes it with the
// schema: <schema>_available, <schema>_leader_stepdown, <schema>_cancel.
type Channel string

// The notification channels.
const (
	ChannelAvailable Channel = "available"
	ChannelStepdown  Channel = "leader_stepdown"
	// ChannelCancel carries the id of a running job that was cancelled,
	// so that the worker running it cancels its handler's context at once.
	ChannelCancel Channel = "cancel"
)

// MaxPayloadBytes is the largest payload or metadata document a store accepts.
const MaxPayloadBytes = 1 << 20
