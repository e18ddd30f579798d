// Package mutant plants known bugs in tickwork for the simulator to find.
//
// Each bug is a small `if mutant.On("name") { ... }` edit in the worker or
// the in-memory store. In normal builds On is the constant false, so the
// compiler removes the planted code and production behaves as written. Built
// with `-tags mutants`, On reports whether the simulator selected that bug
// with Select, which is how `simulate -mutant NAME` proves that the
// simulator's properties catch it.
package mutant

import (
	"slices"
	"strings"
)

// Names lists every planted bug, in the order the mutants run reports them.
var Names = []string{
	MaxFetch,
	UnfencedResults,
	RenewExpiredLease,
	RetryAtMax,
	DutiesWithoutRecheck,
	NoRescue,
	ShutdownNoDrain,
	StartBeforeCommit,
	RunnerDrainNoWait,
	RunnerShutdownNoRetry,
	RunnerNoCancel,
	RunnerDropResults,
	CallNoDeadline,
	FailRetried,
	UniqueSkippedOnCopy,
	OutputDropped,
	PriorityInverted,
	PauseIgnored,
	PauseAllIgnored,
	LimitPerWorker,
	KeyLimitUncounted,
	KeyLimitStops,
	SequenceRunningUnheld,
	SequenceByID,
	SequenceHaltIgnored,
	ParentDoneEarly,
	SettleSkipsFailed,
	BatchOneShort,
	BatchCountsRetried,
	BatchWaitsForCompletion,
	BatchGoneWithFirstAttempt,
	DeleteUnended,
	DeleteCutsChains,
	HistoryIgnored,
	RetentionHalved,
	WorkerRetentionHalved,
	CleanupBatchIgnored,
	RetentionSkipsFailed,
	RetentionPausesAfterFullBatch,
	WorkerRetentionOneAPass,
	PromoteOneAPass,
	DeadWorkersOneAPass,
	RescueOneAPass,
	HeartbeatDropped,
	HeartbeatSkippedWhileBusy,
	LeaderPassesSlow,
	SchedulesOneAPass,
	BulkIgnoresStatus,
	BulkBatchOverrun,
	DeadLetterRetried,
	RatePerWorker,
	CancelFencesOnly,
	VacuumIgnoresInterval,
	HandlerMaxAttemptsIgnored,
	SnoozeConsumesAttempt,
	ScheduleKeyDropped,
	ScheduleZeroDue,
	ContextFollowsStop,
	StopRepeatAbandons,
	ShutdownCallsUntimed,
	DrainCancelLate,
	ReleaseWaitsForHandlers,
	WakeIgnored,
	WakeReservesNothing,
	PollReservesNothing,
	PollTwice,
	BackoffOffByOne,
	BackoffPastHeartbeat,
	VacuumNoDeadline,
	RecoveredAfterFailedPass,
	LeaseRetakenRenews,
	OutputInClear,
	PanicFailsJob,
	QueueDrainedEarly,
	PGNoSkipLocked,
	PGSplitLease,
	PGDutiesUnserialized,
	PGCompleteUnchecked,
	PGLimitCountUnlocked,
	PGKeyCountUnlocked,
	PGSequenceSkipsLocked,
	PGHintsKept,
	PGPauseAllPlainIgnored,
	PGRenewOverwrites,
	PGExpireUnchecked,
	PGResignUnchecked,
	PGDeadUnchecked,
	PGPassLiveUnlocked,
	PGReadOnlyKept,
	PGBulkDeleteUnchecked,
	PGPassFencedDropped,
	PGReleaseSkipped,
}

// The planted bugs.
const (
	// MaxFetch reserves max(MaxFetch, MaxConcurrent-running) jobs, the
	// original's bug: the concurrency cap is never enforced.
	MaxFetch = "max-fetch"
	// UnfencedResults records a result whatever the row's status or owner.
	UnfencedResults = "unfenced-results"
	// RenewExpiredLease lets a worker renew its own lease after it expired.
	RenewExpiredLease = "renew-expired-lease"
	// RetryAtMax schedules a retry of an attempt already at MaxRetries.
	RetryAtMax = "retry-at-max"
	// DutiesWithoutRecheck runs leader duties without re-checking the lease
	// in the duty transaction.
	DutiesWithoutRecheck = "duties-without-recheck"
	// NoRescue leaves the running jobs of dead workers running forever.
	NoRescue = "no-rescue"
	// ShutdownNoDrain shuts down without releasing the jobs still running.
	ShutdownNoDrain = "shutdown-no-drain"
	// StartBeforeCommit starts reserved jobs even when their reserving
	// transaction did not commit.
	StartBeforeCommit = "start-before-commit"
	// RunnerDrainNoWait: the runner's drain does not wait for running jobs;
	// it goes to the drain deadline at once.
	RunnerDrainNoWait = "runner-drain-no-wait"
	// RunnerShutdownNoRetry: the runner gives up a failed shutdown step
	// after one try.
	RunnerShutdownNoRetry = "runner-shutdown-no-retry"
	// RunnerNoCancel: the runner does not cancel job contexts at the drain
	// deadline.
	RunnerNoCancel = "runner-no-cancel"
	// RunnerDropResults: the runner drops results of jobs that finish while
	// it backs off after a failed tick.
	RunnerDropResults = "runner-drop-results"
	// CallNoDeadline: the runner makes its store calls without a deadline,
	// so a call on a half-open connection waits forever.
	CallNoDeadline = "call-no-deadline"
	// FailRetried retries a job whose handler decided to fail it.
	FailRetried = "fail-retried"
	// UniqueSkippedOnCopy inserts every job of a batch large enough for
	// store/pg's COPY path, duplicates of a unique key included.
	UniqueSkippedOnCopy = "unique-skipped-on-copy"
	// OutputDropped completes a job without the output its handler
	// recorded when others complete with it.
	OutputDropped = "output-dropped"
	// PriorityInverted: the in-memory store reserves the largest priority
	// number first.
	PriorityInverted = "priority-inverted"
	// PauseIgnored: the in-memory store reserves from paused queues.
	PauseIgnored = "pause-ignored"
	// PauseAllIgnored: the in-memory store reserves while every queue is
	// paused (PauseAll).
	PauseAllIgnored = "pause-all-ignored"
	// LimitPerWorker: the in-memory store counts a queue's limit against
	// the reserving worker's running jobs instead of every worker's.
	LimitPerWorker = "limit-per-worker"
	// KeyLimitUncounted: the in-memory store counts a key's running jobs
	// against the queue's per-key limit but not the ones the reservation
	// itself takes, so one reservation can start a key's whole backlog.
	KeyLimitUncounted = "key-limit-uncounted"
	// KeyLimitStops: the in-memory store stops taking a queue's jobs at
	// the first job whose key is at its limit instead of skipping over
	// it, so a hot key's backlog holds up every other key.
	KeyLimitStops = "key-limit-stops"
	// ParentDoneEarly: the in-memory store releases a waiting job when one of its
	// parents completes, whatever its other parents, so it may start
	// before they end.
	ParentDoneEarly = "parent-done-early"
	// SettleSkipsFailed: both stores settle a waiting job as if a parent
	// that failed or was lost for good were still to run, so its child
	// waits for ever instead of being cancelled.
	SettleSkipsFailed = "settle-skips-failed"
	// BatchOneShort: both stores release a batch's callback once all its
	// members but one ended, so it may start before the last one ended.
	BatchOneShort = "batch-one-short"
	// BatchCountsRetried: both stores count a batch member that failed
	// or was lost even when a retry follows it, so the member is counted
	// again when its retry ends and the callback may start too early.
	BatchCountsRetried = "batch-counts-retried"
	// BatchWaitsForCompletion: both stores release a batch's callback
	// only once every member completed, so a batch with a member that
	// failed for good or was cancelled keeps its callback waiting for ever.
	BatchWaitsForCompletion = "batch-waits-for-completion"
	// BatchGoneWithFirstAttempt: the in-memory store deletes a batch
	// with its callback's first row, as both stores did until migration
	// 0026: a retry of the callback still to run then finds no batch,
	// and fails on every attempt.
	BatchGoneWithFirstAttempt = "batch-gone-with-first-attempt"
	// DeleteUnended: both stores let an operator delete a job that has
	// not ended, so a running job's row vanishes under its worker.
	DeleteUnended = "delete-unended"
	// DeleteCutsChains: both stores' rules let retention and an operator
	// delete a retry while the attempt that names it stays, leaving that
	// attempt's link NULL: it looks failed for good, so its batch counts
	// it again and it halts its sequence.
	DeleteCutsChains = "delete-cuts-chains"
	// HistoryIgnored: the in-memory store's completion deletes a row that
	// nothing else keeps whatever its queue's history setting, so a queue
	// that keeps history loses its completed rows before retention.
	HistoryIgnored = "history-ignored"
	// RetentionHalved: the in-memory store's retention deletes rows that
	// ended half the retention period ago: history an operator asked to
	// keep goes early, and no other promise breaks.
	RetentionHalved = "retention-halved"
	// WorkerRetentionHalved: the in-memory store's retention deletes the
	// rows of workers that shut down half the retention period ago.
	WorkerRetentionHalved = "worker-retention-halved"
	// CleanupBatchIgnored: the in-memory store's retention deletes every
	// old job at once, whatever the batch a leader pass asks for.
	CleanupBatchIgnored = "cleanup-batch-ignored"
	// RetentionSkipsFailed: the in-memory store's retention leaves failed
	// and lost rows in place, as a WHERE clause naming completed rows only
	// would: the history of failures grows without end, and every deletion
	// it does make is of an old enough row.
	RetentionSkipsFailed = "retention-skips-failed"
	// RetentionPausesAfterFullBatch: a leader whose retention pass deleted
	// a full batch waits out the cleanup interval before the next one, so
	// a backlog of old rows shrinks by one batch an interval.
	RetentionPausesAfterFullBatch = "retention-pauses-after-full-batch"
	// WorkerRetentionOneAPass: the in-memory store's retention deletes
	// one old worker row a pass, as a LIMIT 1 left in its statement would.
	WorkerRetentionOneAPass = "worker-retention-one-a-pass"
	// PromoteOneAPass: the in-memory store's promotion makes one due
	// scheduled row available a pass: retries and delayed jobs start
	// late, one leader interval each, and none is lost.
	PromoteOneAPass = "promote-one-a-pass"
	// DeadWorkersOneAPass: the in-memory store declares one worker past
	// the dead threshold dead a pass, so the others' jobs wait longer for
	// their rescue.
	DeadWorkersOneAPass = "dead-workers-one-a-pass"
	// RescueOneAPass: the in-memory store's rescue marks one running job
	// of the workers no longer live lost a pass.
	RescueOneAPass = "rescue-one-a-pass"
	// HeartbeatDropped: the in-memory store's heartbeat reports success
	// without writing the row, so live workers are declared dead once the
	// threshold passes; their jobs are rescued and run again, within
	// every rule judged on the rows.
	HeartbeatDropped = "heartbeat-dropped"
	// HeartbeatSkippedWhileBusy: a worker's job pass leaves out its due
	// heartbeat while its handlers run, so a worker busy for longer than
	// the dead threshold is declared dead and its jobs run again.
	HeartbeatSkippedWhileBusy = "heartbeat-skipped-while-busy"
	// LeaderPassesSlow: a worker maintains the lease, and its leader
	// passes run, at three times the leader interval: promotions, rescues
	// and retention come late, and every one is still done.
	LeaderPassesSlow = "leader-passes-slow"
	// SchedulesOneAPass: a leader pass fires the first due schedule and
	// leaves the others to the next pass; their runs carry the right cron
	// times, late.
	SchedulesOneAPass = "schedules-one-a-pass"
	// BulkIgnoresStatus: Client.Bulk's batches leave the status out of
	// the filter they judge rows by, so `worker jobs cancel -status
	// available` cancels running jobs too.
	BulkIgnoresStatus = "bulk-ignores-status"
	// BulkBatchOverrun: a batch of Client.Bulk reads twice its batch size
	// of rows, so one transaction acts on (and locks) more rows than the
	// operator allowed.
	BulkBatchOverrun = "bulk-batch-overrun"
	// DeadLetterRetried: a worker moves a failed job to its queue's
	// dead-letter queue before deciding its retry, so a job with attempts
	// left is both dead-lettered and retried.
	DeadLetterRetried = "dead-letter-retried"
	// RatePerWorker: the in-memory store gives each worker its own rate
	// slots of a queue, so a queue's rate bounds each worker's starts
	// instead of every worker's together.
	RatePerWorker = "rate-per-worker"
	// CancelFencesOnly: the runner never cancels the context of a running
	// job whose row was cancelled; only its result is fenced off.
	CancelFencesOnly = "cancel-fences-only"
	// VacuumIgnoresInterval: the leader's vacuum duty claims a vacuum
	// whenever the dead rows pass the threshold, however recently the last
	// one began.
	VacuumIgnoresInterval = "vacuum-ignores-interval"
	// HandlerMaxAttemptsIgnored: a worker bounds a job's attempts by its
	// config's MaxRetries, ignoring its handler's MaxAttempts.
	HandlerMaxAttemptsIgnored = "handler-max-attempts-ignored"
	// PanicFailsJob: the worker takes a handler's panic for a final
	// failure, so a job whose handler panicked once fails for good
	// instead of being retried. It is planted in the worker's
	// handler path, which the simulator runs as each modelled handler
	// returns.
	PanicFailsJob = "panic-fails-job"
	// SnoozeConsumesAttempt: the in-memory store numbers a snoozed job's
	// next row one attempt more, as a retry.
	SnoozeConsumesAttempt = "snooze-consumes-attempt"
	// ScheduleKeyDropped: the leader enqueues a schedule's runs without the
	// schedule's unique key.
	ScheduleKeyDropped = "schedule-key-dropped"
	// ScheduleZeroDue: a schedule's cron time is taken as the cron
	// library gives it, its zero "no next time" included, which the store
	// reads as due long ago (and Validate accepts an expression that never
	// fires).
	ScheduleZeroDue = "schedule-zero-due"
	// ContextFollowsStop: the handlers' contexts are cancelled with the
	// request to stop, not at the drain deadline.
	ContextFollowsStop = "context-follows-stop"
	// StopRepeatAbandons: the same signal repeated at once (a process and
	// its group signalled) abandons the drain.
	StopRepeatAbandons = "stop-repeat-abandons"
	// ShutdownCallsUntimed: the runner's store calls after the stop have
	// no timeout, so a silent store holds the shutdown up for ever.
	ShutdownCallsUntimed = "shutdown-calls-untimed"
	// DrainCancelLate: at the drain deadline the runner waits out the
	// grace before it cancels the handlers still running, and cancels
	// them only as it releases their jobs.
	DrainCancelLate = "drain-cancel-late"
	// ReleaseWaitsForHandlers: at the end of the grace the runner does
	// not release the jobs whose handlers still run; it trusts cancelled
	// handlers to return and waits for them, as in the drain.
	ReleaseWaitsForHandlers = "release-waits-for-handlers"
	// WakeIgnored: the runner ignores notifications of available jobs
	// and finds them at its next poll.
	WakeIgnored = "wake-ignored"
	// WakeReservesNothing: the tick a notification of available jobs
	// brings records results and heartbeats but asks for no job, so the
	// job waits for the next poll.
	WakeReservesNothing = "wake-reserves-nothing"
	// PollReservesNothing: the tick the poll timer brings records results
	// and heartbeats but asks for no job, so a job whose notification was
	// lost waits for a job to finish or another notification.
	PollReservesNothing = "poll-reserves-nothing"
	// PollTwice: the runner sleeps twice its poll interval between ticks.
	PollTwice = "poll-twice"
	// BackoffOffByOne: after failed ticks the runner waits the error
	// backoff of one failure more, twice as long as it should.
	BackoffOffByOne = "backoff-off-by-one"
	// BackoffPastHeartbeat: the error backoff grows to its 30 s cap even
	// past the heartbeat interval, so a worker whose store came back
	// stays silent past its dead threshold.
	BackoffPastHeartbeat = "backoff-past-heartbeat"
	// VacuumNoDeadline: the leader's vacuum runs without a deadline, so a
	// vacuum on a half-open connection never returns.
	VacuumNoDeadline = "vacuum-no-deadline"
	// RecoveredAfterFailedPass: the jobs a tick recovered from an unseen
	// reservation are started even when the job pass after that recovery
	// failed, on a read that may have gone stale meanwhile (rescued,
	// retried, deleted by retention).
	RecoveredAfterFailedPass = "recovered-after-failed-pass"
	// LeaseRetakenRenews: a leader that takes the lease again after the
	// one it last saw committed expired reports a renewal, not a new term,
	// when its own transaction expired nothing (another worker deleted the
	// old row).
	LeaseRetakenRenews = "lease-retaken-renews"
	// OutputInClear stores the output of a job whose payload is encrypted
	// in clear (encryption.Ring.SealOutput).
	OutputInClear = "output-in-clear"
	// QueueDrainedEarly: a queue a running worker removed is reported
	// drained at once, while jobs of it still run (Worker.RemoveQueue
	// returns before they end).
	QueueDrainedEarly = "queue-drained-early"

	// The planted bugs of store/pg's SQL, which need transactions in
	// flight together: only simulate -store pg -interleave catches them
	// (PG reports them).

	// PGNoSkipLocked: the reservation locks its rows FOR UPDATE without
	// SKIP LOCKED, waiting for rows other transactions hold.
	PGNoSkipLocked = "pg-no-skip-locked"
	// PGSplitLease: the lease is written after the read that found it free
	// without re-checking, overwriting one taken meanwhile.
	PGSplitLease = "pg-split-lease"
	// PGDutiesUnserialized: leader duties run without the advisory duty
	// lock.
	PGDutiesUnserialized = "pg-duties-unserialized"
	// PGCompleteUnchecked: completion does not check that the row is still
	// running under the completing worker.
	PGCompleteUnchecked = "pg-complete-unchecked"
	// PGLimitCountUnlocked: a reservation that counts a limited queue's
	// running jobs does so without the queue's limit lock, so two may
	// count the same free places and both fill them.
	PGLimitCountUnlocked = "pg-limit-count-unlocked"
	// PGKeyCountUnlocked: a reservation of a queue with a per-key limit
	// (and no queue-wide one) counts its running jobs by key without the
	// queue's limit lock, so two may count the same free places of a key
	// and both fill them.
	PGKeyCountUnlocked = "pg-key-count-unlocked"
	// PGHintsKept: a reservation's hint of where to start reading its
	// queue (store/pg/hints.go) is never forgotten nor ignored, so a job
	// made available below it waits until the hint passes it.
	PGHintsKept = "pg-hints-kept"
	// PGPauseAllPlainIgnored: store/pg's plain reservation, for queues
	// without controls, does not read the pause of all queues.
	PGPauseAllPlainIgnored = "pg-pause-all-plain-ignored"
	// PGRenewOverwrites: a renewal writes the lease its SELECT found its
	// own, holder and expiry, without re-checking the holder in the
	// UPDATE: a take-over committed between the two is overwritten.
	PGRenewOverwrites = "pg-renew-overwrites"
	// PGExpireUnchecked: a take-over reads whether the lease expired in
	// one statement and deletes it in the next without re-checking: a
	// lease renewed or taken by another process in between is deleted.
	PGExpireUnchecked = "pg-expire-unchecked"
	// PGResignUnchecked: a resign at shutdown reads the lease and, if it
	// was its own, deletes it in the next statement without re-checking
	// the holder: a take-over committed in between is deleted.
	PGResignUnchecked = "pg-resign-unchecked"
	// PGDeadUnchecked: the leader's duty lists the workers whose heartbeat
	// is past the dead threshold and shuts them down by id in the next
	// statement without re-checking the heartbeat: a worker whose
	// heartbeat committed in between is declared dead.
	PGDeadUnchecked = "pg-dead-unchecked"
	// PGPassLiveUnlocked: store/pg's pipelined job pass reads its worker's
	// liveness without share-locking the row, so a leader's duty may
	// declare the worker dead and rescue its jobs while the pass, which
	// found it live, reserves more: a pass without a heartbeat (whose
	// UPDATE would lock the row too) then leaves them running under a dead
	// worker. Reserve through the Tx methods keeps its lock: only the
	// interleaved run's pipelined pass meets it.
	PGPassLiveUnlocked = "pg-pass-live-unlocked"

	// The planted bugs of store/pg that a serial run on PostgreSQL
	// catches (simulate -store pg, PGSerial reports them).

	// PGReadOnlyKept: a connection whose node refused a write as read-only
	// (SQLSTATE 25006, after a failover) goes back to the pool instead of
	// being closed, so every retry meets the same node.
	PGReadOnlyKept = "pg-readonly-kept"
	// PGBulkDeleteUnchecked: store/pg's batch delete (DeleteJobs, and
	// DeleteJob, its batch of one) deletes every row it locked, those
	// rules.CheckDelete refused included, so a bulk delete removes a
	// running job under its worker.
	PGBulkDeleteUnchecked = "pg-bulk-delete-unchecked"
	// PGPassFencedDropped: store/pg's pipelined job pass (RunJobPass)
	// reads its completions' answers but drops the fenced ids, so its
	// worker takes a refused result for a recorded one. The pass through
	// the Tx methods is not affected: only a simulator that sends the
	// store's own pass sees it (simulate -store pg, serial or interleaved).
	PGPassFencedDropped = "pg-pass-fenced-dropped"
	// PGReleaseSkipped: a completion calls release_children only when
	// one of the rows it completed is not awaited, so the jobs waiting
	// for a parent completed alone, or with other awaited parents only,
	// stay waiting.
	PGReleaseSkipped = "pg-release-skipped"
)

// PG reports whether name is a planted bug of store/pg's SQL, which only
// the interleaved simulation on PostgreSQL can catch.
func PG(name string) bool { return strings.HasPrefix(name, "pg-") && !PGSerial(name) }

// PGSerial reports whether name is a planted bug of store/pg that the
// serial simulation on PostgreSQL (simulate -store pg) catches: it needs
// the store's own connections, not transactions in flight together, or
// shows in a serial history (PGPauseAllPlainIgnored: in 200 interleaved
// seeds of 10 s none caught it, the serial run does at seed 8;
// PGBulkDeleteUnchecked, PGPassFencedDropped, PGReleaseSkipped: the
// in-memory store's trace differs; the leader's settling releases the
// children PGReleaseSkipped leaves waiting soon enough for the properties).
func PGSerial(name string) bool {
	return name == PGReadOnlyKept || name == PGPauseAllPlainIgnored || name == PGBulkDeleteUnchecked || name == PGPassFencedDropped ||
		name == PGReleaseSkipped
}

// Known reports whether name is one of Names.
func Known(name string) bool { return slices.Contains(Names, name) }
