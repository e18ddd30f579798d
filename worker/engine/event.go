package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Observer receives the core's events, in order, on the goroutine that calls
// the core. An event about a store change is delivered only after the
// transaction that made it committed, stamped with that transaction's store
// time; the simulator and the runner's logs are built from these.
type Observer interface {
	Observe(Event)
}

// RefObserver is an Observer that also takes an event by reference, the
// event valid only for the call and not to be changed: a core hands it
// the events a transaction noted in place, where Observe would copy each,
// over a kilobyte, once more.
type RefObserver interface {
	Observer
	ObserveRef(*Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// EventKind names what happened.
type EventKind int

// The events a core reports. The comment of each says which Event fields it
// fills besides Kind, Worker, Local and (for store changes) StoreTime.
const (
	// EventRegistered: the worker inserted its row under Worker.
	EventRegistered EventKind = iota + 1
	// EventDeclaredDead: the store no longer knows Worker as live (its row
	// was shut down by a leader); the core drops its leader belief and
	// registers again. Err is the store's answer. The transaction that
	// noticed it rolled back, so StoreTime is zero.
	EventDeclaredDead
	// EventHeartbeat: last_seen_at was updated.
	EventHeartbeat
	// EventLeaseAcquired: Worker took the lease (a new term); LeaseExpires
	// is StoreTime + LeaseTTL.
	EventLeaseAcquired
	// EventLeaseRenewed: Worker extended its lease to LeaseExpires.
	EventLeaseRenewed
	// EventLeaseLost: Worker believed it was leader and found it is not
	// (renewal refused or duties re-check failed). Nothing was changed.
	EventLeaseLost
	// EventLeaseReleased: Worker deleted its lease at shutdown and notified
	// the stepdown channel.
	EventLeaseReleased
	// EventDutiesStarted: LockLeaderDuties returned true in the transaction
	// stamped StoreTime; the duty events that follow ran in it.
	EventDutiesStarted
	// EventScheduleFired: Schedule enqueued Job (its new row) for CronTime.
	EventScheduleFired
	// EventDeadWorkersShutDown: the leader shut down Workers, whose last
	// heartbeat was older than the dead threshold.
	EventDeadWorkersShutDown
	// EventJobRescued: Job (as returned, status lost) was running under a
	// shut-down worker. A retry or abandon event follows.
	EventJobRescued
	// EventJobsPromoted: Count scheduled jobs became available.
	EventJobsPromoted
	// EventJobsDeleted: retention deleted Count old jobs.
	EventJobsDeleted
	// EventWorkersDeleted: retention deleted Count old worker rows.
	EventWorkersDeleted
	// EventRetryScheduled: Job (the failed or lost attempt, as the core
	// knows it) got its next attempt Next, scheduled Delay after StoreTime.
	EventRetryScheduled
	// EventRetryAbandoned: Job ended for good: Decision was Fail, or its
	// attempt reached MaxRetries. Reason says which.
	EventRetryAbandoned
	// EventResultRecorded: the result (Decision, Reason) of Job was
	// written: completed, or failed.
	EventResultRecorded
	// EventResultFenced: the result of Job was refused because the row no
	// longer runs under the worker that reserved it (Worker is that id).
	// Reason says whether an earlier, unseen commit may have recorded it.
	EventResultFenced
	// EventJobStarted: Job, reserved under Worker, was handed to the driver
	// to execute after its reservation committed. Reason is non-empty when
	// it was recovered with RunningJobs after a reserve whose commit the
	// core did not see.
	EventJobStarted
	// EventReleasedAtShutdown: Job did not return by the drain deadline and
	// was failed with reason "worker shut down"; a retry or abandon event
	// follows.
	EventReleasedAtShutdown
	// EventShutDown: Worker's row was marked shut down.
	EventShutDown
	// EventStoreError: a transaction failed with Err; its outcome is
	// unknown. Reason names the phase (register, lease, jobs, duties,
	// release, shutdown).
	EventStoreError
	// EventNotificationIgnored: the runner ignored a notification because
	// every slot is busy (Reason "full"); the poll or a finishing job
	// brings the next tick.
	EventNotificationIgnored
	// EventDrainDeadline: the drain timeout passed with Count jobs still
	// running; their contexts are cancelled and, after a grace, the ones
	// that did not return are released.
	EventDrainDeadline
	// EventShutdownAbandoned: the shutdown transaction failed Count times,
	// with Err the last time: the runner gives it up and exits, and a
	// leader rescues the worker's jobs once its heartbeat is stale.
	EventShutdownAbandoned
	// EventReleaseAbandoned: releasing the jobs left at the drain deadline
	// failed Count times, with Err the last time; the shutdown transaction
	// releases them next.
	EventReleaseAbandoned
	// EventDutiesEnded: the leader duties begun by EventDutiesStarted in
	// the same transaction are over; delivered with its other events.
	// When they applied the retention periods, Limit is the batch of job
	// rows they could delete and Count the rows deleted; both are 0 when
	// retention was not due.
	EventDutiesEnded
	// EventJobFinished: the handler of Job (reserved under Worker) returned
	// with Decision and Reason; the result is recorded later. Not emitted
	// for a job the core no longer counts (released at shutdown).
	EventJobFinished
	// EventStopRequested: the runner was asked to shut down gracefully and
	// stopped reserving.
	EventStopRequested
	// EventJobsCancelled: the runner's driver cancelled the contexts of
	// every running job (the drain deadline); see Policy.ReportCancelled.
	EventJobsCancelled
	// EventCancelChecked: a job pass asked which of Jobs, the executing
	// jobs whose contexts were not cancelled yet, were cancelled; Count of
	// them were.
	EventCancelChecked
	// EventJobCancelled: the runner's driver cancelled the context of the
	// handler of Job (reserved under Worker) because its row was
	// cancelled; Reason says how the runner learned it. See
	// Policy.ReportJobsCancelled.
	EventJobCancelled
	// EventVacuumClaimed: the leader's duty transaction found the jobs
	// table due a vacuum (Count dead rows, at least VacuumDeadRows, and
	// VacuumInterval since the last one) and recorded that one starts at
	// StoreTime.
	EventVacuumClaimed
	// EventVacuumStarted: the runner handed the vacuum it claimed to its
	// driver, which runs it beside the job path (ActVacuum).
	EventVacuumStarted
	// EventVacuumEnded: that vacuum returned, with Err if it failed.
	EventVacuumEnded
	// EventJobSnoozed: Job (the row that snoozed) got the row Next, which
	// runs the same attempt Delay after StoreTime.
	EventJobSnoozed
	// EventScheduleSkipped: Schedule's run at CronTime was not enqueued:
	// Job, another row, holds the schedule's unique key.
	EventScheduleSkipped
	// EventScheduleNoNextTime: Schedule has no cron time within
	// ScheduleHorizon of StoreTime, so its leader enqueues nothing for it;
	// Reason says so with the expression. Reported once until the
	// schedule has a time again, not at every leader pass.
	EventScheduleNoNextTime
	// EventTickStarted: the serving runner begins a tick; Reason is why
	// it woke (Action.Wake: sleep, task, notification; "" for the first).
	EventTickStarted
	// EventWaiting: the serving runner's store calls returned and it
	// waits for its next tick; Count is its failed ticks in a row (not
	// zero: it waits out the error backoff and ignores notifications).
	EventWaiting
	// EventNotified: the driver handed the serving runner a notification
	// that jobs of queue Reason are available.
	EventNotified
	// EventJobPass: a tick's job pass returned without error, empty ones
	// (no transaction) included: it asked for Limit jobs of Queues and
	// reserved Count, after the jobs it started (recovered ones too) were
	// reported. StoreTime is its transaction's, zero when it ran none.
	EventJobPass
	// EventJobSettled: the leader settled Job (as it now is), which waited
	// for parents: released (available or scheduled) or cancelled.
	EventJobSettled
	// EventQueueAdded, EventQueueRemoved: the running worker reserves from
	// queue Reason from now on, or no more (queues.go).
	EventQueueAdded
	EventQueueRemoved
	// EventQueueDrained: queue Reason, removed, has no job running nor
	// result unrecorded.
	EventQueueDrained
)

var eventNames = map[EventKind]string{
	EventRegistered: "registered", EventDeclaredDead: "declared-dead", EventHeartbeat: "heartbeat",
	EventLeaseAcquired: "lease-acquired", EventLeaseRenewed: "lease-renewed", EventLeaseLost: "lease-lost",
	EventLeaseReleased: "lease-released", EventDutiesStarted: "duties-started",
	EventScheduleFired: "schedule-fired", EventDeadWorkersShutDown: "dead-workers-shut-down",
	EventJobRescued: "job-rescued", EventJobsPromoted: "jobs-promoted", EventJobsDeleted: "jobs-deleted",
	EventWorkersDeleted: "workers-deleted", EventRetryScheduled: "retry-scheduled",
	EventRetryAbandoned: "retry-abandoned", EventResultRecorded: "result-recorded",
	EventResultFenced: "result-fenced", EventJobStarted: "job-started",
	EventReleasedAtShutdown: "released-at-shutdown", EventShutDown: "shut-down", EventStoreError: "store-error",
	EventNotificationIgnored: "notification-ignored", EventDrainDeadline: "drain-deadline",
	EventShutdownAbandoned: "shutdown-abandoned", EventDutiesEnded: "duties-ended", EventReleaseAbandoned: "release-abandoned",
	EventJobFinished: "job-finished", EventStopRequested: "stop-requested", EventJobsCancelled: "jobs-cancelled",
	EventCancelChecked: "cancel-checked", EventJobCancelled: "job-cancelled",
	EventVacuumClaimed: "vacuum-claimed", EventVacuumStarted: "vacuum-started", EventVacuumEnded: "vacuum-ended",
	EventJobSnoozed: "job-snoozed", EventScheduleSkipped: "schedule-skipped",
	EventScheduleNoNextTime: "schedule-no-next-time",
	EventTickStarted:        "tick-started", EventWaiting: "waiting", EventNotified: "notified",
	EventJobPass: "job-pass", EventJobSettled: "job-settled",
	EventQueueAdded: "queue-added", EventQueueRemoved: "queue-removed", EventQueueDrained: "queue-drained",
}

// String returns the kind's name, e.g. "lease-acquired".
func (k EventKind) String() string {
	if s, ok := eventNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing a core did or noticed. Fields a kind does not use are
// zero.
type Event struct {
	Kind EventKind
	// Worker is the worker id the event concerns: for results, the id that
	// reserved the job (an earlier incarnation's after a re-registration).
	Worker ulid.ULID
	// Local is the `now` of the Tick (or zero for Release and Shutdown,
	// which get no local time).
	Local time.Time
	// StoreTime is Tx.Now of the transaction the event happened in.
	StoreTime time.Time

	Job store.Job // the row concerned, as the core knows it
	// Next is the new attempt's row of EventRetryScheduled and
	// EventJobSnoozed, nil for other events. A pointer, as few events
	// have one: a row is half a kilobyte, and every event is copied and
	// cleared along the core's and the observers' paths.
	Next *store.Job
	// Delay is the backoff delay of a retry, or the wait of a snooze
	// (EventJobSnoozed, and EventJobFinished with Decision Snooze).
	Delay    time.Duration
	Decision Decision
	Reason   string
	// Output is EventJobFinished's output recorded by the handler, nil for
	// none.
	Output json.RawMessage

	LeaseExpires time.Time // lease events
	Schedule     string    // EventScheduleFired
	CronTime     time.Time // EventScheduleFired: the run's scheduled_at
	Workers      []ulid.ULID
	Jobs         []ulid.ULID // EventCancelChecked: the jobs asked about
	Queues       []string    // EventJobPass: the queues it reserved from
	Limit        int         // EventJobPass: the jobs it asked for; EventDutiesEnded: see there
	Count        int
	Err          error
}

// resetButJob sets every field but Job to zero, but for Kind and Worker.
// The core's slot of emitted events (Core.event) clears the row, over
// half the event, only when the last event had one: most have none, and
// clearing the whole event wrote cold cache lines each time, a tenth of
// the simulator's D1 write misses. TestResetButJob checks it misses none.
func (e *Event) resetButJob(kind EventKind, worker ulid.ULID) {
	e.Kind, e.Worker, e.Local, e.StoreTime = kind, worker, time.Time{}, time.Time{}
	e.Next, e.Delay, e.Decision, e.Reason, e.Output = nil, 0, 0, "", nil
	e.LeaseExpires, e.Schedule, e.CronTime = time.Time{}, "", time.Time{}
	e.Workers, e.Jobs, e.Queues, e.Limit, e.Count, e.Err = nil, nil, nil, 0, 0, nil
}

// String renders the event on one line, for traces and logs.
func (e Event) String() string {
	s := fmt.Sprintf("%s worker=%s", e.Kind, e.Worker)
	if !e.StoreTime.IsZero() {
		s += " store=" + e.StoreTime.Format(time.RFC3339Nano)
	}
	if e.Job.ID != (ulid.ULID{}) {
		s += fmt.Sprintf(" job=%s queue=%s attempt=%d", e.Job.ID, e.Job.Queue, e.Job.Attempt)
	}
	if e.Next != nil {
		s += fmt.Sprintf(" next=%s delay=%v", e.Next.ID, e.Delay)
	}
	if e.Kind == EventResultRecorded || e.Kind == EventResultFenced || e.Kind == EventRetryAbandoned || e.Kind == EventJobFinished {
		s += " decision=" + e.Decision.String()
	}
	if e.Reason != "" {
		s += fmt.Sprintf(" reason=%q", e.Reason)
	}
	if !e.LeaseExpires.IsZero() {
		s += " expires=" + e.LeaseExpires.Format(time.RFC3339Nano)
	}
	if e.Schedule != "" {
		s += fmt.Sprintf(" schedule=%s at=%s", e.Schedule, e.CronTime.Format(time.RFC3339))
	}
	if len(e.Workers) > 0 {
		s += fmt.Sprintf(" workers=%v", e.Workers)
	}
	if len(e.Jobs) > 0 {
		s += fmt.Sprintf(" jobs=%v", e.Jobs)
	}
	if e.Count != 0 {
		s += fmt.Sprintf(" count=%d", e.Count)
	}
	if e.Err != nil {
		s += fmt.Sprintf(" err=%q", e.Err.Error())
	}
	return s
}
