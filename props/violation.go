package props

import (
	"fmt"
	"strings"
	"time"
)

// Property names one of the promises checked. Its number is its place in
// the list below, so the numbers have no holes; a new property goes at the
// end of the list, with its name in propertyNames, and keeps every other
// property's number.
type Property int

// The properties. WellFormed is not a promise of tickwork but of the
// recording: a history whose rows contradict each other cannot be judged.
const (
	WellFormed Property = iota
	LeaderUniqueness
	RetryBounds
	ShutdownDraining
	NoLostJobs
	ConcurrencyCap
	SingleExecution
	ScheduleRuns
	// UniqueKeys: never two rows holding the same unique key.
	UniqueKeys
	// RecordedOutput: a row gets an output only when its completion is
	// recorded, the one its handler recorded, and keeps it.
	RecordedOutput
	Priorities
	QueuePause
	QueueLimit
	// JobCancel: a running job's cancel stops its handler.
	JobCancel
	// QueueRate: no window of a queue's rate period holds more starts
	// than its rate (props/rate.go).
	QueueRate
	// Snoozes: a snoozed job runs again, as the same attempt with one more
	// snooze, no earlier than its snooze's wait after it snoozed; past
	// MaxSnoozes it fails for good.
	Snoozes
	// Vacuum: a vacuum runs only when due (props/vacuum.go).
	Vacuum
	// ReservationLockWait: a reservation never waits on another
	// transaction's row lock (ReservationWaits; interleaved runs only).
	ReservationLockWait
	// OneStopRequest: the same request to stop repeated within a moment
	// is one request: it does not give the drain up (props/process.go).
	OneStopRequest
	// ShutdownBound: a graceful shutdown ends within Params.ShutdownBound,
	// however slow or silent the store (props/bound.go).
	ShutdownBound
	// DrainBound: a handler still running at the drain deadline has its
	// context cancelled at the deadline and its job released within
	// Params.ReleaseBound (props/drain.go).
	DrainBound
	// PollInterval: a serving worker ticks at least once per poll
	// interval (props/wake.go), and each job pass takes the jobs it can
	// (props/wakepass.go).
	PollInterval
	// WakeUp: a waiting worker with a free place ticks at once on a
	// notification of available jobs (props/wake.go), and that tick's
	// job pass reserves them (props/wakepass.go).
	WakeUp
	// QueueKeyLimit: no reservation leaves more of a queue's jobs with one
	// partition key running than the queue's per-key limit (props/keys.go).
	QueueKeyLimit
	// KeyFairness: a job of a key under its limit never waits behind the
	// backlog of keys at theirs (props/keys.go).
	KeyFairness
	// SequenceExclusive, SequenceOrder, SequenceHalt: the jobs of one
	// sequence run one at a time, in enqueue order, and none after a job
	// that halts it (props/sequence.go).
	SequenceExclusive
	SequenceOrder
	SequenceHalt
	// DependencyOrder: a job leaves its wait only once every parent
	// completed (or, running anyway, ended), and a job cancelled for a
	// parent names one that ended without completing
	// (props/dependencies.go).
	DependencyOrder
	// DependenciesSettled: no job still waits, at the end of a leader
	// pass, for a parent that ended (props/dependencies.go).
	DependenciesSettled
	// BatchOrder: a batch's callback leaves its wait only once every
	// member ended for good (props/batch.go).
	BatchOrder
	// BatchesSettled: no callback still waits, at the end of a leader
	// pass, for a batch whose members all ended (props/batch.go).
	BatchesSettled
	// DeadLetters: a job is in one place: a row moves to its queue's
	// dead-letter queue only once it failed for good, keeping the queue it
	// came from, and a redrive's next attempt goes back there, chained
	// (props/deadletter.go).
	DeadLetters
	// QueuePauseAll: no reservation commits, from any queue, after a
	// PauseAll committed and before the ResumeAll that lifts it
	// (props/queues.go).
	QueuePauseAll
	// EncryptedAtRest: a stored row never holds the clear text of a field
	// its job was enqueued encrypted with, nor of its output: each is an
	// envelope (props/encrypted.go).
	EncryptedAtRest
	// QueueRemoval: a queue a running worker removed gets no job pass of
	// its after the removal, and drains as at shutdown before it is
	// reported drained (props/queueremoval.go).
	QueueRemoval
	// BulkActions: each batch of an operator's bulk action changes only
	// rows its filter selected, as its action may, at most its batch size
	// of them, and nothing in a dry run (props/bulk.go).
	BulkActions
	// QueueHistory: a job's row vanishes at its completion only on a
	// queue that keeps no history, by its own worker's commit, and only
	// when nothing keeps it; a queue that keeps history loses no row
	// before retention (props/queuehistory.go).
	QueueHistory
	// Retention: the leader deletes a job's row only its retention
	// period after it ended, and a worker's only its period after it
	// shut down (props/retention.go).
	Retention
	// PassComplete: a leader pass leaves no scheduled row due, no live
	// worker unseen past the dead threshold and no running row under a
	// worker that is not live (props/passcomplete.go).
	PassComplete
	// Heartbeats: a heartbeat the store reported recorded is in the
	// worker's row, and a serving worker's job pass heartbeats once its
	// interval passed since the last (props/heartbeat.go).
	Heartbeats
	// LeaseCadence: a serving lease holder maintains its lease once the
	// leader interval passed since it last did (props/leasecadence.go).
	LeaseCadence
	numProperties // not a property: how many there are
)

var propertyNames = [numProperties]string{
	WellFormed:          "well-formed history",
	LeaderUniqueness:    "leader uniqueness",
	RetryBounds:         "retry bounds",
	ShutdownDraining:    "shutdown draining",
	NoLostJobs:          "no lost jobs",
	ConcurrencyCap:      "concurrency cap",
	SingleExecution:     "single execution",
	ScheduleRuns:        "schedules",
	UniqueKeys:          "unique keys",
	RecordedOutput:      "recorded output",
	Priorities:          "priorities",
	QueuePause:          "queue pause",
	QueueLimit:          "queue limit",
	JobCancel:           "job cancel",
	QueueRate:           "queue rate",
	Snoozes:             "snoozes",
	Vacuum:              "vacuum",
	ReservationLockWait: "reservations never wait",
	OneStopRequest:      "a repeated signal is one request",
	ShutdownBound:       "shutdown bound",
	DrainBound:          "drain deadline",
	PollInterval:        "poll interval",
	WakeUp:              "wake-up",
	QueueKeyLimit:       "queue per-key limit",
	KeyFairness:         "per-key fairness",
	SequenceExclusive:   "sequence one at a time",
	SequenceOrder:       "sequence order",
	SequenceHalt:        "sequence halt",
	DependencyOrder:     "dependency order",
	DependenciesSettled: "dependencies settled",
	BatchOrder:          "batch callback order",
	BatchesSettled:      "batches settled",
	DeadLetters:         "dead letters",
	QueuePauseAll:       "pause all queues",
	EncryptedAtRest:     "encrypted at rest",
	QueueRemoval:        "queue removal",
	BulkActions:         "bulk actions",
	QueueHistory:        "queue history",
	Retention:           "retention",
	PassComplete:        "leader pass complete",
	Heartbeats:          "heartbeats",
	LeaseCadence:        "lease cadence",
}

// String returns the property's number and name, e.g. "2 (retry bounds)".
func (p Property) String() string {
	if p < 0 || p >= numProperties {
		return fmt.Sprintf("%d (unknown)", int(p))
	}
	return fmt.Sprintf("%d (%s)", int(p), propertyNames[p])
}

// A Violation is one broken promise: which property, at which event, why,
// and the rows and earlier events involved, so a report can show them.
type Violation struct {
	Property Property
	// Index is the position of the violating event among those given to
	// the checker (0-based); for a liveness violation found by Finish it is
	// the number of events, and Seq and Time are those of the last event.
	Index   int
	Seq     int64
	Time    time.Time
	Message string

	Jobs    []JobRow    `json:",omitempty"` // job rows involved, as they were then
	Workers []WorkerRow `json:",omitempty"`
	Leases  []LeaseRow  `json:",omitempty"`
	Events  []Event     `json:",omitempty"` // earlier events involved (an execution's start, ...)
}

// String renders the violation on one line followed by one indented line
// per row and event involved.
func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "property %v violated at event %d (seq %d, %s): %s",
		v.Property, v.Index, v.Seq, formatTime(v.Time), v.Message)
	for _, j := range v.Jobs {
		fmt.Fprintf(&b, "\n  job %v", j)
	}
	for _, w := range v.Workers {
		fmt.Fprintf(&b, "\n  worker %v", w)
	}
	for _, l := range v.Leases {
		fmt.Fprintf(&b, "\n  lease %v", l)
	}
	for _, e := range v.Events {
		fmt.Fprintf(&b, "\n  event %v", e)
	}
	return b.String()
}

// formatTime prints a store time the same way on every machine.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}
