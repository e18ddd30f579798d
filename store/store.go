package store

import (
	"context"
	"time"

	"github.com/oklog/ulid/v2"
)

// Store is a queue database. It is safe for concurrent use.
type Store interface {
	// InTx runs fn in one transaction: everything fn does commits together
	// when fn returns nil, and nothing does when it returns an error or
	// panics. An ErrUnavailable from InTx may come after the commit: callers
	// must treat it as "maybe applied".
	InTx(ctx context.Context, fn func(Tx) error) error
	// Listen subscribes to the available, stepdown and cancel channels
	// until ctx is done. Delivery is best effort: a slow reader loses notifications, and
	// workers poll anyway.
	Listen(ctx context.Context) (<-chan Notification, error)
}

// Tx is one transaction. Its methods must only be used inside the InTx
// callback that received it, from one goroutine.
type Tx interface {
	// Now is the store's time for this transaction, rounded to the
	// microsecond. Every timestamp the transaction writes or compares is
	// this value.
	Now(ctx context.Context) (time.Time, error)

	Workers
	Leases
	Jobs
	Schedules
	Queues
	Vacuums
}

// Workers manages the workers table.
type Workers interface {
	// RegisterWorker inserts a live worker row; ErrConflict if id exists.
	RegisterWorker(ctx context.Context, id ulid.ULID) error
	// Heartbeat sets last_seen_at to now. ErrNotFound if the worker does
	// not exist or was shut down: it was declared dead and must register
	// again under a new id.
	Heartbeat(ctx context.Context, id ulid.ULID) error
	// ShutdownWorker sets shutdown_at to now; a no-op for a worker already
	// shut down, ErrNotFound for an unknown one.
	ShutdownWorker(ctx context.Context, id ulid.ULID) error
	// ShutdownDeadWorkers shuts down every live worker whose last_seen_at
	// is older than now − threshold and returns their ids in id order.
	ShutdownDeadWorkers(ctx context.Context, threshold time.Duration) ([]ulid.ULID, error)
	// ListWorkers returns every worker row in id order.
	ListWorkers(ctx context.Context) ([]Worker, error)
	// DeleteOldWorkers deletes workers shut down before now − age and
	// returns how many. Their running jobs get started_by NULL (zero);
	// finished jobs keep the id of the worker that ran them.
	DeleteOldWorkers(ctx context.Context, age time.Duration) (int, error)
}

// Leases manages the single leader lease. Lease times are store time.
type Leases interface {
	// ExpireLease deletes the lease if it expired (expires_at <= now) and
	// reports whether it did.
	ExpireLease(ctx context.Context) (bool, error)
	// TryAcquireLease takes the lease for worker when there is none, or
	// renews it to now + ttl when worker already holds an unexpired one.
	// It reports whether worker holds the lease afterwards. ErrNotFound if
	// worker is not a live worker. It never takes over a lease held by
	// another worker, expired or not: ExpireLease does that.
	TryAcquireLease(ctx context.Context, worker ulid.ULID, ttl time.Duration) (bool, error)
	// ReleaseLease deletes the lease if worker holds it, reports whether it
	// did, and then notifies the stepdown channel.
	ReleaseLease(ctx context.Context, worker ulid.ULID) (bool, error)
	// GetLease returns the lease row; ErrNotFound if there is none.
	GetLease(ctx context.Context) (Lease, error)
	// LockLeaderDuties takes the transaction-scoped leader-duty lock
	// (waiting for another holder) and then reports whether worker holds an
	// unexpired lease. Duties run in the same transaction only if it is true.
	LockLeaderDuties(ctx context.Context, worker ulid.ULID) (bool, error)
}

// Jobs manages the jobs table.
type Jobs interface {
	// InsertJobs inserts rows, attempt 0, in one statement (COPY for large
	// batches without unique keys in PostgreSQL) and notifies the available
	// channel once per queue that got an available row. ErrInvalid for a
	// bad job (nothing is inserted), ErrConflict for a duplicate id. A job
	// whose stored unique key is held by a row (one inserted earlier in the
	// batch included) is not inserted: it is returned as a Duplicate, in
	// batch order. A job with parents (NewJob.Parents) is inserted
	// Waiting, settled at once against parents that ended
	// (SettleWaitingJobs); a parent that is a duplicate stands for the row
	// it duplicated, and one that names no row and no earlier job of the
	// batch is ErrInvalid naming it (nothing is inserted). A callback
	// (NewJob.Callback) is inserted Waiting with a batches row counting
	// the jobs of the insert that name it in NewJob.Batch.
	InsertJobs(ctx context.Context, jobs []NewJob) ([]Duplicate, error)
	// Reserve marks up to limit available jobs of the given queues as
	// running, started by worker at now, skipping rows locked by other
	// transactions, paused queues and what would take a queue past its
	// limit, and returns them in id order. It takes the smallest priority
	// first, then the earliest scheduled_at, then the smallest id.
	// ErrNotFound if worker is not a live worker; nothing is reserved then.
	Reserve(ctx context.Context, worker ulid.ULID, queues []string, limit int) ([]Job, error)
	// RunningJobs returns the jobs running under worker, in id order. A
	// worker uses it to recover reservations whose commit it did not see.
	RunningJobs(ctx context.Context, worker ulid.ULID) ([]Job, error)
	// CompleteJobs marks c's jobs completed, each with its output if c has
	// one, if each is still running under c.Worker (a job waiting for them
	// drops them from its parents, and leaves Waiting when none is left,
	// as in SettleWaitingJobs), and returns the ids that
	// were fenced off (not changed), in the order given. ErrInvalid for an
	// output that ValidateOutput refuses (nothing is changed).
	CompleteJobs(ctx context.Context, c Completion) (fenced []ulid.ULID, err error)
	// FailJob marks a job failed with reason if it is still running under
	// worker; ErrFenced (nothing changed) otherwise. The reason is kept with
	// every invalid UTF-8 sequence and every NUL replaced by U+FFFD, so that
	// any handler error text can be recorded.
	FailJob(ctx context.Context, worker, id ulid.ULID, reason string) error
	// ScheduleRetry inserts the next attempt of a failed or lost job that
	// has none: same queue, payload, metadata, schedule name, unique key
	// (which the failed row no longer holds), priority, max attempts and
	// snoozes, attempt+1,
	// scheduled at now + delay (available at once when delay <= 0). It links
	// the old row's next_attempt_id to it and, if the schedule points at
	// the old row, moves the schedule's pointer to the new one, and makes
	// the jobs waiting for the old row wait for the new one. A
	// dead-lettered row's next attempt goes back to the queue it was
	// dead-lettered from (Job.DeadFrom): a redrive. It returns
	// the new row. ErrConflict if the job is not failed or lost, or already
	// has a next attempt, or if another row holds its unique key;
	// ErrNotFound if it does not exist.
	ScheduleRetry(ctx context.Context, id, newID ulid.ULID, delay time.Duration) (Job, error)
	// RetryJobs is ScheduleRetry of each of ids in turn as newIDs[i], in a
	// fixed number of statements for all (Client.Bulk's batch), and
	// returns one outcome per id, in order: nil for a job it retried,
	// else the refusal ScheduleRetry would give after the earlier ids
	// (ErrConflict: an id given again has a next attempt, a new row of
	// the batch may hold a later row's unique key; ErrNotFound). Another
	// error, or ids and newIDs of different lengths (ErrInvalid), fails
	// the call.
	RetryJobs(ctx context.Context, ids, newIDs []ulid.ULID, delay time.Duration) ([]error, error)
	// DeadLetterJob moves a job that failed for good to its queue's
	// dead-letter queue (Queue.DeadLetter), if its queue has one: the row
	// keeps its status, its Queue becomes the dead-letter queue and its
	// DeadFrom the queue it failed in, so that the job is in one place
	// only. It returns the row, unchanged when its queue has no
	// dead-letter queue or it was dead-lettered already. ErrConflict if
	// the row is not failed or lost or has a next attempt; ErrNotFound if
	// it does not exist. A redrive is a ScheduleRetry of the row.
	DeadLetterJob(ctx context.Context, id ulid.ULID) (Job, error)
	// SnoozeJob ends the run of a job still running under worker with a
	// snooze: the row becomes snoozed (completed_at = now) and a new row
	// newID takes its place, as ScheduleRetry's would but with the same
	// attempt number and one more snooze, scheduled at now + delay
	// (available at once when delay <= 0). It returns the new row.
	// ErrFenced (nothing changed) if the job no longer runs under worker;
	// ErrConflict if newID exists.
	SnoozeJob(ctx context.Context, worker, id, newID ulid.ULID, delay time.Duration) (Job, error)
	// RescueLostJobs marks every running job whose worker is shut down as
	// lost (failed_at = now, failed_reason naming the worker) and returns
	// them in id order; the caller decides on their retries.
	RescueLostJobs(ctx context.Context) ([]Job, error)
	// SettleWaitingJobs settles the waiting jobs whose parents ended, the
	// leader's safety net for what the writes of a parent did not settle
	// at once (a parent that failed for good: a retry might have followed
	// in the same transaction): a parent that completed is no longer waited
	// for, one that failed or was lost for good or was cancelled cancels
	// the job (failed_reason naming it) unless the job runs anyway, and a
	// job left waiting for nothing becomes available (scheduled when its
	// scheduled_at is later). A cancelled job settles its own children in
	// turn. It also counts, in their batches, the members that ended for
	// good since the last pass (Job.BatchCounted), and releases the
	// callback of each batch whose members all ended, as above. It returns
	// the rows it took out of Waiting (or cancelled), in id order.
	SettleWaitingJobs(ctx context.Context) ([]Job, error)
	// GetBatch returns the batch whose callback's first row is id (batch.go);
	// ErrNotFound if there is none.
	GetBatch(ctx context.Context, id ulid.ULID) (Batch, error)
	// PromoteScheduledJobs makes scheduled jobs whose scheduled_at <= now
	// available, notifies once per queue, and returns how many.
	PromoteScheduledJobs(ctx context.Context) (int, error)
	// GetJob returns one row; ErrNotFound if it does not exist.
	GetJob(ctx context.Context, id ulid.ULID) (Job, error)
	// ListJobs returns rows matching f in id order.
	ListJobs(ctx context.Context, f JobFilter) ([]Job, error)
	// CancelJob cancels a scheduled, available, running or waiting job,
	// then settles the jobs that wait for it (see SettleWaitingJobs). A running
	// job's result will then be fenced off, and the cancel channel carries
	// its id at commit, so that its worker cancels the handler's context
	// (CancelledJobs is the fallback for a lost notification). ErrConflict
	// for a terminal job, ErrNotFound for an unknown one.
	CancelJob(ctx context.Context, id ulid.ULID) (Job, error)
	// CancelJobFrom is CancelJob of a job whose status is still from
	// (any status for ""): one that moved on since the caller read it, a
	// scheduled job a promotion made available or an available one a
	// reservation started, is refused with ErrConflict and left as it is
	// (Client.Bulk acts on what its filter read).
	CancelJobFrom(ctx context.Context, id ulid.ULID, from Status) (Job, error)
	// CancelJobsFrom is CancelJobFrom of each of ids from from[i], in one
	// statement or a few for all (Client.Bulk's batch), and returns one
	// outcome per id, in order: nil for a job it cancelled, else the
	// refusal CancelJobFrom gives (ErrConflict, ErrNotFound). Each row is
	// judged as it was when called: an id given again is refused as
	// cancelled, or as its first occurrence was, and a job cancelled here
	// is not first cancelled by the settling of a parent cancelled here
	// too, which comes after every row's cancel. Another error, or ids
	// and from of different lengths (ErrInvalid), fails the call.
	CancelJobsFrom(ctx context.Context, ids []ulid.ULID, from []Status) ([]error, error)
	// SkipJob releases the sequence that job id halts (Job.Halts): the
	// row stays failed or lost, marked skipped, and the next job of its
	// key may start: when that one is available, the available channel
	// carries its queue at commit. ErrConflict when it halts none,
	// ErrNotFound for an unknown job.
	SkipJob(ctx context.Context, id ulid.ULID) (Job, error)
	// SequenceHead returns the job that holds sequence key first in
	// enqueue order (Job.HoldsSequence): the one running, the next to
	// start, or the one that halts it. ErrNotFound when none holds it.
	SequenceHead(ctx context.Context, key string) (Job, error)
	// CancelledJobs returns, in id order and each once, the ids among ids
	// whose rows are cancelled: a worker asks about the jobs it executes.
	// Unknown ids are not an error.
	CancelledJobs(ctx context.Context, ids []ulid.ULID) ([]ulid.ULID, error)
	// DeleteJob deletes job id, an operator's action, and returns its
	// row. Only a job retention could delete is deleted, at any age: one
	// that ended, halts no sequence, that no waiting job waits for and
	// that its batch counted; a callback takes its batch along. Links to
	// it (next_attempt_id, schedules) become NULL. ErrConflict, saying
	// what to do first, for any other; ErrNotFound for an unknown one.
	DeleteJob(ctx context.Context, id ulid.ULID) (Job, error)
	// DeleteJobs is DeleteJob of each of ids in turn, of a job whose
	// status is still from[i] (any status for ""), in a fixed number of
	// statements for all (Client.Bulk's batch), and returns one outcome
	// per id, in order: nil for a job it deleted, else the refusal
	// DeleteJob would give after the earlier ids (ErrConflict, or
	// ErrNotFound, an id given again after its delete included), or
	// ErrConflict for a job that moved on since the caller read it (a
	// running job a leader found lost), which is left as it is. Another
	// error, or ids and from of different lengths (ErrInvalid), fails the
	// call.
	DeleteJobs(ctx context.Context, ids []ulid.ULID, from []Status) ([]error, error)
	// DeleteOldJobs deletes up to limit terminal jobs that ended
	// (completed, failed or cancelled) before now − age, those that ended
	// first (then by id), and returns how many; limit < 1 deletes none.
	// A row a waiting job waits for is kept.
	// Links to deleted rows (next_attempt_id, schedules) become NULL. The
	// limit bounds a transaction however much history is due at once.
	DeleteOldJobs(ctx context.Context, age time.Duration, limit int) (int, error)
}

// Schedules manages the schedules table.
type Schedules interface {
	// EnsureSchedules inserts a row for each name that has none.
	EnsureSchedules(ctx context.Context, names []string) error
	// ListSchedules returns every schedule row in name order.
	ListSchedules(ctx context.Context) ([]Schedule, error)
	// AdvanceSchedule records that the schedule's next run is job at at.
	// ErrNotFound for an unknown schedule.
	AdvanceSchedule(ctx context.Context, name string, at time.Time, job ulid.ULID) error
}
