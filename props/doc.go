// Package props checks the promises of tickwork (docs/DESIGN.md) on a recorded
// History: the rows every store transaction committed plus what the driver
// saw happen (executions, crashes, shutdowns, leader duties). It knows
// nothing of the worker, the simulator or the stores, so a history from the
// simulator and one from a live PostgreSQL run (see Reconstruct) are checked
// by the same code.
//
// Safety properties are checked event by event (Checker.Step) so a run can
// stop at the first violating event; liveness at the end (Checker.Finish).
// How each property is decided:
//
//  1. Leader uniqueness: at most one lease row; it passes to another worker,
//     or is deleted by another, only once expired; a holder renews (same
//     elected_at) only an unexpired lease; no lease longer than the TTL or
//     granted to a shut-down worker. Leader duties (DutiesStarted, and every
//     commit by a worker that promotes, rescues, declares dead, enqueues a
//     schedule run, advances a schedule or deletes rows) happen under the
//     doer's unexpired lease, and duties never nest.
//  2. Retry bounds: no row is an attempt beyond its job's bound (the job's
//     own MaxAttempts, else its queue's policy's, else MaxRetries+1); a
//     retry links a failed or lost row with attempts left to a new row
//     numbered one more, keeping the job's bound and snoozes, scheduled
//     within the queue's (else the global) Backoff.Bounds of the failure
//     time; a row has one next attempt; no row is promoted or starts
//     before its scheduled_at.
//  3. Shutdown draining: once a worker reports its graceful shutdown done,
//     no row runs under it, it holds no lease, every job its process started
//     has ended, and its worker row is shut down; a shutting-down worker
//     reserves nothing.
//  4. No lost jobs (Finish): every row has ended, but for each schedule's
//     next run; a snoozed row has its next row; a failed or lost row
//     without a next attempt had none left, or failed by its handler's
//     Fail decision or a Snooze past MaxSnoozes.
//  5. Concurrency cap: executions in progress per process (across its
//     registrations; a crash or a completed shutdown ends them) never exceed
//     MaxConcurrent.
//  6. Single execution: a handler starts only on a row its worker reserved;
//     a row executes once; another attempt of the same job runs beside an
//     execution only if that execution lost its claim (row rescued,
//     released or cancelled, or its worker declared dead); a result changes
//     only a running row, and only by the worker it runs under; a worker is
//     declared dead only past the threshold, a rescue takes only a dead
//     worker's rows, and a shut-down worker never comes back.
//  7. Schedules: a run is due at the next cron time after its creation,
//     later than the previous run's, and is enqueued only once the previous
//     run's chain has ended; an old run is never retried after a newer one
//     was enqueued; the schedule row points at the latest run's latest
//     attempt; a run carries its schedule's unique key, and the row
//     advances past a cron time without a run only while another row
//     holds that key.
//
// Properties 8 to 14 (unique keys, recorded output, priorities, queue
// pause, queue limit, job cancel, queue rate) are described in the files
// that decide them: unique.go, output.go, queues.go, cancel.go and
// rate.go. Property 15, snoozes, in snooze.go: a snoozed row is followed,
// in the same commit, by a new row of the same attempt with one more
// snooze, due the snooze's wait later; past MaxSnoozes a Snooze fails the
// job for good. Property 16, vacuum, in vacuum.go; property 17, a
// reservation never waits on another transaction's lock, in lockwait.go
// (interleaved runs only). Property 18, one stop request, in process.go:
// a drain cut short after only a repeat of the first request to stop
// within RepeatWindow. Property 19, the shutdown bound, in bound.go: a
// graceful shutdown ends within ShutdownBound, stalls aside. Property 20,
// the drain deadline, in drain.go: at its drain deadline (DrainDeadline)
// a runner cancels its handlers' contexts before store time moves on, no
// handler's context is left uncancelled past CancelBound, and no job
// whose handler still runs is left running under its worker past
// ReleaseBound unless the release was given up. Properties 21 and 22,
// the poll interval and the wake-up, in wake.go: a serving runner whose
// last tick succeeded begins a tick within PollBound of waiting (after
// failed ticks, within the error backoff's BackoffBounds), and
// within WakeBound of a notification of available jobs in its queues
// while it has a free place; and that tick's job pass (JobPass) leaves no
// job of the notified queue it could have reserved, nor any pass one of
// its queues (wakepass.go). Properties 23 and 24, the queue per-key
// limit and per-key fairness, in keys.go: no reservation leaves more of a
// queue's jobs of one partition key running than its per-key limit, and a
// job of a key under its limit is not passed over (a later job of
// another key reserved while it waits) by more than FairnessSlack
// commits in a row, by one in a serial history, where no job pass leaves
// it either. Properties 25 to 27, the sequences, in sequence.go: the
// jobs of one sequence key run one at a time (25), in enqueue order, a
// retry or snooze keeping its job's place (26), and none starts behind a
// job that failed for good and halts the sequence until an operator
// skips or retries it (27).
//
// Properties 28 and 29, dependency order and dependencies settled, in
// dependencies.go: a job leaves its wait only once every parent completed
// (or ended, if it runs anyway), and no job still waits, at the end of a
// leader pass (the next one in a history in CommitOrder), for a parent
// that ended. (On a branch without properties
// 25 to 27 they are numbered 25 and 26: the numbers follow the list.)
//
// Properties 30 and 31, batch callback order and batches settled, in
// batch.go: a batch's callback leaves its wait only once every member
// row of its batch ended (so it starts once, after the last member), and
// no callback still waits, at the end of a leader pass (the next one in
// a history in CommitOrder), for a batch whose members all ended.
//
// Property 34, encrypted at rest, in encrypted.go: no stored row holds
// the clear text of a field its job was enqueued encrypted with, nor of
// its output.
//
// Property 35, queue removal, in queueremoval.go: a queue a running worker
// removed gets no job pass of its after the removal, and drains as at a
// shutdown before it is reported drained.
//
// Property 36, bulk actions, in bulk.go: each batch of an operator's
// bulk action acts only on rows its filter selected, as its action may,
// on at most its batch size of them, and a dry run changes nothing.
//
// Property 0 (WellFormed) reports a history that contradicts itself (a
// change from a row it never had, time going back, an illegal transition):
// such a history cannot be judged, and usually means a recording bug.
package props
