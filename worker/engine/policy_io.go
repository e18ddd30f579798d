package engine

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The vocabulary between the runner policy and its drivers: what happened
// (Input) and what to do (Action).

// InputKind says what happened to the runner.
type InputKind uint8

// The inputs of Step.
const (
	InStarted      InputKind = iota + 1 // the runner begins
	InTimer                             // Timer fired
	InJobFinished                       // a handler returned Result
	InNotification                      // Note arrived from the store
	InStop                              // a graceful shutdown was requested
	InCallReturned                      // the store call Call returned Start and Err
	InVacuumEnded                       // the vacuum of ActVacuum returned Err
	// InAbandon: a second request to stop gave the drain up (StopAbandon);
	// the drain deadline is now.
	InAbandon
	// InQueueAdded and InQueueRemoved: the worker reserves from Queue from
	// now on, or no more (queues.go).
	InQueueAdded
	InQueueRemoved
)

// Timer names one of the runner's timers. Arming one replaces the armed
// timer of the same name.
type Timer uint8

// The runner's timers.
const (
	TimerPoll   Timer = iota // the next tick when nothing else comes (or the error backoff)
	TimerLinger              // the end of collecting results that finish together
	TimerDrain               // the drain deadline
	TimerGrace               // after cancelling: release what has not returned
	TimerRetry               // the backoff before retrying a failed shutdown step
	NumTimers
)

// Call names a store call of the core.
type Call uint8

// The store calls.
const (
	CallTick     Call = iota + 1 // the core's tick at the driver's local time
	CallDuties                   // the leader duties a tick made due
	CallRelease                  // release every running job
	CallShutdown                 // record the shutdown
)

// Input is one thing that happened. Kind says which fields are set.
type Input struct {
	Kind   InputKind
	Timer  Timer              // InTimer
	Result Result             // InJobFinished
	Note   store.Notification // InNotification
	Call   Call               // InCallReturned
	Start  []store.Job        // InCallReturned of CallTick: jobs to start
	Cancel []ulid.ULID        // InCallReturned of CallTick: executing jobs found cancelled
	Err    error              // InCallReturned, InVacuumEnded
	Queue  string             // InQueueAdded, InQueueRemoved
}

// ActionKind says what the driver must do.
type ActionKind uint8

// The actions Step returns.
const (
	ActCall          ActionKind = iota + 1 // make store call Call (Do), then Step with its return
	ActStart                               // start Jobs, each on its own
	ActArm                                 // arm Timer to fire After from now (local clock)
	ActCancelRunning                       // cancel the contexts of every running job
	ActCancelJobs                          // cancel the contexts of the jobs JobIDs, then ReportJobsCancelled
	ActExit                                // the runner is done; Err is what it ends with
	// ActVacuum: run Policy.Vacuum beside everything else (it must not
	// hold up the next store calls), given up after Timeout, then Step
	// with InVacuumEnded. At most one is out at a time.
	ActVacuum
	// ActQueueDrained: Queue, removed, has no job running nor result
	// unrecorded in this core (queues.go).
	ActQueueDrained
)

// Action is one thing for the driver to do. Kind says which fields are set.
type Action struct {
	Kind ActionKind
	Call Call   // ActCall
	Wake string // ActCall of CallTick while serving: why the runner woke (sleep, task, notification)
	// Detached is ActCall's: make the call without the stop's
	// cancellation. Every call after the stop is: the drain's ticks record
	// results and heartbeat, and the release and the shutdown are its
	// end. A call made while serving is cut short by the stop.
	Detached bool
	// Timeout is ActCall's and ActVacuum's: give the call up after this
	// long (0: no limit); a vacuum has Config.VacuumTimeout. A call while serving has Config.CallTimeout, so that a
	// silent connection cannot hold the worker; every call after the stop
	// has ShutdownCallTimeout, so that a silent store delays a shutdown by a
	// bounded time (ShutdownBound).
	Timeout time.Duration
	Jobs    []store.Job   // ActStart
	Timer   Timer         // ActArm
	After   time.Duration // ActArm
	Err     error         // ActExit
	// JobIDs and Reason are ActCancelJobs's: the executing jobs whose rows
	// were cancelled, and how the runner learned it (CancelByNotification,
	// CancelByJobPass).
	JobIDs []ulid.ULID
	Reason string
	Queue  string // ActQueueDrained
}
