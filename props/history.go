package props

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
)

// A History is what a run of tickwork recorded: the scenario parameters the
// properties depend on, then the events in the order they happened. Event
// times are store time (true DB time), never a worker's local clock; they
// never decrease, and Seq strictly increases.
type History struct {
	Params Params
	Events []Event
}

// Params are the scenario settings the properties are checked against. They
// must be the settings actually in force in the run (a simulator that
// shortens the backoff per seed records the shortened policy).
type Params struct {
	MaxRetries    int              // a chain has at most MaxRetries+1 attempts, unless its queue or the job says otherwise
	MaxConcurrent int              // executions at once per worker process
	Backoff       clockrng.Backoff // the retry delay policy in force, unless its queue's says otherwise
	// MaxFetch is the most jobs a job pass reserves (0: unknown, and
	// properties 21 and 22 do not judge what a pass reserves).
	MaxFetch int `json:",omitzero"`
	// Policies are the queues whose handlers set their own retry policy.
	Policies []QueuePolicy `json:",omitempty"`
	// MaxSnoozes is how many snoozes a job may take: a Snooze decision of
	// a row with that many before it fails the job for good.
	MaxSnoozes    int
	LeaseTTL      time.Duration  // leader lease time to live (store time)
	DeadThreshold time.Duration  // a worker unseen this long is declared dead
	Schedules     []ScheduleSpec // the cron schedules the workers run
	// ShutdownAttempts is how many failed tries of the shutdown
	// transaction a runner makes before giving it up (0: not checked).
	ShutdownAttempts int
	// DrainTimeout is the runners' drain timeout, for histories whose
	// ShutdownBegan and ExecsCancelled events are exact (a simulator's);
	// 0 turns the checks of releases at shutdown off (a live log stamps
	// ShutdownBegan at the next transaction, not at the signal).
	DrainTimeout time.Duration
	// RepeatWindow is how soon after the first request to stop the same
	// request counts as a repeat of it (StopRequested); 0 for histories
	// that record no requests.
	RepeatWindow time.Duration `json:",omitzero"`
	// ShutdownBound is how long after it began a graceful shutdown must
	// have completed or been given up, not counting the time its process
	// was stalled (0: not checked).
	ShutdownBound time.Duration `json:",omitzero"`
	// CancelBound is how long after it began a graceful shutdown must
	// have cancelled the contexts of its handlers still running, and
	// ReleaseBound how long after it began it must have released their
	// jobs or given their release up; the time its process was stalled
	// does not count (0: not checked; property 20).
	CancelBound  time.Duration `json:",omitzero"`
	ReleaseBound time.Duration `json:",omitzero"`
	// PollBound is the longest a serving process whose last tick
	// succeeded waits before its next tick (0: not checked; property 21).
	PollBound time.Duration `json:",omitzero"`
	// HeartbeatBound is the longest a serving worker goes between the
	// starts of a tick whose job pass heartbeated and of one whose pass
	// must heartbeat again: the heartbeat interval in true time (0: not
	// checked; property 40).
	HeartbeatBound time.Duration `json:",omitzero"`
	// LeaderBound is the longest a serving lease holder goes between the
	// starts of a tick that maintained its lease and of one that must
	// again: the leader interval in true time (0: not checked; property
	// 41, judged on SerialTransactions histories only).
	LeaderBound time.Duration `json:",omitzero"`
	// BackoffBounds[i] is the longest a serving process whose last i+1
	// ticks failed waits before its next tick; the last one holds for any
	// more failures (none: not checked; property 21).
	BackoffBounds []time.Duration `json:",omitempty"`
	// WakeBound is how soon a waiting process with a free place begins a
	// tick after a notification of jobs available in one of Queues, the
	// queues every process serves (0 or no queues: not checked; property
	// 22).
	WakeBound time.Duration `json:",omitzero"`
	Queues    []string      `json:",omitempty"`
	// SerialTransactions says that no two store transactions of the run
	// overlapped (the simulator's in-memory store runs one at a time), so
	// that a row left available by a reservation was locked by nobody:
	// only then is the priority property decided (a live history does not
	// show which rows other transactions held).
	SerialTransactions bool
	// CommitOrder says that the history is in commit order and each commit
	// carries its transaction's store time, the time it began (an
	// interleaved simulation, where transactions overlap): store time may
	// then go back from one event to the next, and a transaction that acts
	// on its worker's lease may commit after that lease passed to another.
	CommitOrder bool
	// VacuumDeadRows and VacuumInterval are the vacuum duty's threshold
	// and interval (0 dead rows: the duty is off, and no vacuum may run).
	VacuumDeadRows int64
	VacuumInterval time.Duration
	// JobRetention and WorkerRetention are the workers' retention periods
	// of ended jobs' and shut-down workers' rows (0: not checked;
	// property 38).
	JobRetention    time.Duration `json:",omitzero"`
	WorkerRetention time.Duration `json:",omitzero"`
	// CleanupBatch is the most job rows one leader pass's retention
	// deletes (0: not checked; property 38).
	CleanupBatch int `json:",omitzero"`
	// HeartbeatsUnknown says that the history holds of each worker's
	// heartbeats only its last (Reconstruct), so that no leader pass is
	// judged for leaving a worker unseen past DeadThreshold (property 39),
	// nor a worker's heartbeats (40).
	HeartbeatsUnknown bool `json:",omitzero"`
}

// ScheduleSpec names a schedule and its cron expression: 6 fields, seconds
// first, UTC (robfig/cron/v3 with seconds). UniqueKey is the stored unique
// key its runs carry ("" for none): a cron time is skipped, not enqueued,
// while another row holds it.
type ScheduleSpec struct {
	Name      string
	Cron      string
	UniqueKey string `json:",omitzero"`
}

// QueuePolicy is one queue's own retry policy: MaxAttempts bounds its
// jobs' runs (0: MaxRetries+1) and Backoff, when set, gives its retries'
// delays. A job's own bound (JobRow.MaxAttempts) wins over both.
type QueuePolicy struct {
	Queue       string
	MaxAttempts int               `json:",omitzero"`
	Backoff     *clockrng.Backoff `json:",omitempty"`
}

// Kind says what an Event records and so which of its fields are set.
type Kind string

// The event kinds. The comment on each lists the Event fields it uses
// besides Seq and Time.
const (
	// Commit: one store transaction committed. Jobs, Workers, Leases and
	// Schedules list every row it changed, each at most once. Worker is
	// the worker whose transaction it was (zero for the driver: enqueues,
	// cancellations); Process names that worker's process when known.
	Commit Kind = "commit"

	// ExecStarted: a handler really began running Job on Process, acting
	// as Worker.
	ExecStarted Kind = "exec_started"
	// ExecEnded: the handler of Job on Process returned; Decision and
	// Reason are what it returned. A crash or a completed shutdown ends
	// the process's executions without an ExecEnded.
	ExecEnded Kind = "exec_ended"

	// Crashed: Process died at once, losing all in-memory state; its
	// executions stop. Worker is the id it was acting as.
	Crashed Kind = "crashed"
	// Restarted: Process started again (it will register a new Worker).
	Restarted Kind = "restarted"
	// ShutdownBegan: Process (acting as Worker) began a graceful shutdown.
	ShutdownBegan Kind = "shutdown_began"
	// ShutdownCompleted: Process finished its graceful shutdown as Worker
	// and exits; its executions stop. Running and LeaseHolder are what the
	// driver read from the store at that moment: the jobs running with
	// started_by = Worker (in id order) and the lease holder (zero: none).
	ShutdownCompleted Kind = "shutdown_completed"
	// ShutdownAbandoned: Process gave its graceful shutdown up as Worker
	// after Failures failed shutdown transactions in a row, and exits; its
	// executions stop, and a leader rescues what the worker still owns.
	ShutdownAbandoned Kind = "shutdown_abandoned"
	// StopRequested: Process (acting as Worker) received a request to stop
	// named Reason (a signal's name). The first begins its graceful
	// shutdown; the same again within Params.RepeatWindow is the same
	// request; any other gives the drain up.
	StopRequested Kind = "stop_requested"
	// Stalled: Process froze (a pause of the whole process: no timer fires
	// and no call goes on) until its Resumed.
	Stalled Kind = "stalled"
	// Resumed: Process goes on after its Stalled.
	Resumed Kind = "resumed"
	// ExecsCancelled: Process cancelled the contexts of all its running
	// handlers (the drain deadline of a graceful shutdown).
	ExecsCancelled Kind = "execs_cancelled"
	// ExecCancelled: Process cancelled the context of the handler of Job,
	// whose row was cancelled, acting as Worker, the id the job was
	// reserved under.
	ExecCancelled Kind = "exec_cancelled"
	// CancelChecked: Worker (on Process) asked the store, in a transaction
	// at store time Time, which of Asked, jobs it executes, were cancelled.
	CancelChecked Kind = "cancel_checked"
	// DeclaredDead: Process learned that Worker was declared dead (its
	// heartbeat found no live row) and will register again.
	DeclaredDead Kind = "declared_dead"
	// Heartbeat: Worker (on Process) was told its heartbeat, in a
	// transaction at store time Time, was recorded.
	Heartbeat Kind = "heartbeat"
	// LeasePass: Worker (on Process) took or renewed the lease in a
	// transaction at store time Time, or, with Reason "failed", its
	// transaction to maintain the lease failed.
	LeasePass Kind = "lease_pass"

	// DutiesStarted: Worker (on Process) began leader duties in a
	// transaction at store time Time, after checking its lease; LeaseExpires
	// is the expiry it believed. DutiesEnded: that transaction ended; when
	// it applied the retention periods, Limit is its batch and Deleted the
	// job rows it deleted.
	DutiesStarted Kind = "duties_started"
	DutiesEnded   Kind = "duties_ended"

	// ResultFenced: the store refused Worker's result for Job (the row was
	// no longer running under Worker); the row must not change because of it.
	ResultFenced Kind = "result_fenced"

	// ScheduleFired: the leader Worker enqueued Job for Schedule at cron
	// time CronTime.
	ScheduleFired Kind = "schedule_fired"

	// VacuumClaimed: the leader Worker's duty transaction at store time
	// Time counted DeadRows dead job rows and recorded that a vacuum of
	// jobs starts. VacuumStarted: Process (as Worker) began running the
	// vacuum it claimed, outside any transaction.
	VacuumClaimed Kind = "vacuum_claimed"
	VacuumStarted Kind = "vacuum_started"

	// DrainDeadline: Process (as Worker) reached the deadline of its
	// graceful shutdown's drain, or gave the drain up: it cancels its
	// handlers' contexts now (ExecsCancelled).
	DrainDeadline Kind = "drain_deadline"
	// ReleaseAbandoned: Process gave up releasing the jobs whose handlers
	// outlived the drain after Failures failed tries; the shutdown
	// transaction releases them, or a leader rescues them.
	ReleaseAbandoned Kind = "release_abandoned"
	// TickStarted: Process, serving, began a tick; Reason is why it woke
	// (sleep, task, notification; "" for its first).
	TickStarted Kind = "tick_started"
	// Waiting: Process, serving, has its store calls back and waits for
	// its next tick; Failures is its failed ticks in a row (not zero: it
	// waits out the error backoff).
	Waiting Kind = "waiting"
	// Notified: the driver handed Process, serving, a notification that
	// jobs of Queue are available.
	Notified Kind = "notified"
	// Encrypted: the driver sealed Fields of Job (SealedPayload,
	// SealedOutput, SealedMetadata and a key) whose clear texts are
	// Clear, before the commit that stores them: no row of the job may
	// hold them in clear (property EncryptedAtRest).
	Encrypted Kind = "encrypted"
	// JobPass: a job pass of Process (as Worker) returned without error,
	// at its transaction's store time (or when it returned, if it ran
	// none), after the starts of the jobs it handed out: it asked for
	// Limit jobs of PassQueues and reserved Reserved of them.
	JobPass Kind = "job_pass"
	// QueueRemoved, QueueAdded: Process (as Worker) stopped or began
	// again reserving from Queue while it runs. QueueDrained: no job of
	// Queue, removed, runs on Process nor waits for its result to be
	// recorded (property QueueRemoval).
	QueueRemoved Kind = "queue_removed"
	QueueAdded   Kind = "queue_added"
	QueueDrained Kind = "queue_drained"
)

// Decision is what a handler's run asked for.
type Decision string

// The decisions a handler's run can end with. A panic or a timeout is
// recorded as Retry (with its reason); an undecodable payload as Fail.
const (
	Succeed Decision = "succeed"
	Retry   Decision = "retry"
	Fail    Decision = "fail"
	Snooze  Decision = "snooze"
)

// Event is one recorded happening. Kind says which fields are set; the
// others are zero. Time is store time.
type Event struct {
	Seq  int64
	Time time.Time
	Kind Kind

	Process string    `json:",omitzero"` // the driver's stable name for a worker process
	Worker  ulid.ULID `json:",omitzero"` // the worker row id the process acts as
	Job     ulid.ULID `json:",omitzero"`
	Queue   string    `json:",omitzero"` // Notified, QueueRemoved, QueueAdded, QueueDrained

	// Commit
	Jobs      []JobChange      `json:",omitempty"`
	Workers   []WorkerChange   `json:",omitempty"`
	Leases    []LeaseChange    `json:",omitempty"`
	Schedules []ScheduleChange `json:",omitempty"`
	Queues    []QueueChange    `json:",omitempty"`
	// Bulk is set on a commit that is one batch of an operator's bulk
	// action: the request it carries out (bulk.go).
	Bulk *BulkRequest `json:",omitempty"`

	// ExecEnded
	Decision Decision      `json:",omitzero"`
	Reason   string        `json:",omitzero"`
	Output   string        `json:",omitzero"` // the output the handler recorded, "" for none
	Snooze   time.Duration `json:",omitzero"` // the wait a Snooze decision asked for

	// ShutdownAbandoned, ReleaseAbandoned, Waiting
	Failures int `json:",omitzero"`

	// ShutdownCompleted
	Running     []ulid.ULID `json:",omitempty"`
	LeaseHolder ulid.ULID   `json:",omitzero"`

	// CancelChecked
	Asked []ulid.ULID `json:",omitempty"`

	// JobPass; Limit is also DutiesEnded's retention batch (0: the pass
	// applied no retention)
	PassQueues []string `json:",omitempty"`
	Limit      int      `json:",omitzero"`
	Reserved   int      `json:",omitzero"`

	// DutiesEnded: the job rows the pass's retention deleted
	Deleted int `json:",omitzero"`

	// DutiesStarted
	LeaseExpires time.Time `json:",omitzero"`

	// ScheduleFired
	Schedule string    `json:",omitzero"`
	CronTime time.Time `json:",omitzero"`

	// VacuumClaimed
	DeadRows int64 `json:",omitzero"`

	// Encrypted
	Fields []string `json:",omitempty"`
	Clear  []string `json:",omitempty"`
}

// Status is the status of a job row; the values are the store's.
type Status string

// The job statuses (docs/DESIGN.md, "Job statuses").
const (
	Scheduled Status = "scheduled"
	Available Status = "available"
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
	Lost      Status = "lost"
	Cancelled Status = "cancelled"
	Snoozed   Status = "snoozed" // its handler snoozed: NextAttemptID runs the same attempt later
	Awaiting  Status = "waiting" // waits for its parents (JobRow.Parents) to complete
)

// Terminal reports whether a row in status s will never run again.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Lost || s == Cancelled || s == Snoozed
}

// JobRow is the part of a jobs row the properties read. Zero times and zero
// ids stand for SQL NULL.
type JobRow struct {
	ID            ulid.ULID
	Queue         string
	Status        Status
	Attempt       int
	CreatedAt     time.Time
	ScheduledAt   time.Time
	StartedAt     time.Time `json:",omitzero"`
	StartedBy     ulid.ULID `json:",omitzero"`
	CompletedAt   time.Time `json:",omitzero"`
	FailedAt      time.Time `json:",omitzero"`
	FailedReason  string    `json:",omitzero"`
	CancelledAt   time.Time `json:",omitzero"`
	NextAttemptID ulid.ULID `json:",omitzero"`
	ScheduleName  string    `json:",omitzero"`
	// UniqueKey is the row's stored unique key; the row holds it while its
	// status is one of UniqueWhile's, a comma-separated list.
	UniqueKey   string `json:",omitzero"`
	UniqueWhile string `json:",omitzero"`
	// Output is the recorded output's JSON text, "" for none; Payload and
	// Metadata the stored ones' (properties EncryptedAtRest and
	// BulkActions, whose text filter searches the payload, read them).
	Output   string `json:",omitzero"`
	Payload  string `json:",omitzero"`
	Metadata string `json:",omitzero"`
	Priority int    `json:",omitzero"` // smaller runs first
	// MaxAttempts is the job's own bound on its runs, 0 for none; Snoozes
	// counts the job's snoozes before this row.
	MaxAttempts int `json:",omitzero"`
	Snoozes     int `json:",omitzero"`
	// PartitionKey is the job's partition key, "" for none.
	PartitionKey string      `json:",omitzero"`
	Sequence     JobSequence `json:",omitzero"` // sequence.go
	// Parents are the ids a waiting row still waits for, comma-separated
	// ("" for none); RunAnyway, that a parent that fails for good or is
	// cancelled does not cancel it (props/dependencies.go).
	Parents   string `json:",omitzero"`
	RunAnyway bool   `json:",omitzero"`
	// Batch is the batch a member row belongs to, by its callback's id;
	// BatchCounted, that the leader counted its end; CallbackOf, on a
	// callback's rows, its batch (props/batch.go).
	Batch        ulid.ULID `json:",omitzero"`
	BatchCounted bool      `json:",omitzero"`
	CallbackOf   ulid.ULID `json:",omitzero"`
	// DeadFrom is, on a dead-lettered row, the queue it failed in; its
	// Queue is then that queue's dead-letter queue (props/deadletter.go).
	DeadFrom string `json:",omitzero"`
}

// root reports whether the row is the first of its job's chain: attempt 0,
// before any snooze.
func (r *JobRow) root() bool { return r.Attempt == 0 && r.Snoozes == 0 }

// QueueRow is a queues row: an operator's controls on a queue. A queue
// without a row is neither paused nor limited.
type QueueRow struct {
	Name     string
	PausedAt time.Time `json:",omitzero"` // zero: not paused
	Limit    int       `json:",omitzero"` // most running at once; 0: none
	// Rate is the most starts in any window of RatePeriod; 0: none.
	Rate       int           `json:",omitzero"`
	RatePeriod time.Duration `json:",omitzero"`
	KeyLimit   int           `json:",omitzero"` // most running at once per partition key; 0: none
	DeadLetter string        `json:",omitzero"` // where its jobs that fail for good go; "": none
	// NoHistory: a completion of one of its jobs deletes the row when
	// nothing else keeps it (props/queuehistory.go).
	NoHistory bool `json:",omitzero"`
}

// WorkerRow is a workers row. A zero ShutdownAt means alive.
type WorkerRow struct {
	ID           ulid.ULID
	RegisteredAt time.Time
	LastSeenAt   time.Time
	ShutdownAt   time.Time `json:",omitzero"`
}

// LeaseRow is the leader lease row.
type LeaseRow struct {
	Holder    ulid.ULID
	ElectedAt time.Time
	ExpiresAt time.Time
}

// ScheduleRow is a schedules row. Zero fields stand for SQL NULL.
type ScheduleRow struct {
	Name               string
	LastScheduledAt    time.Time `json:",omitzero"`
	LastScheduledJobID ulid.ULID `json:",omitzero"`
}

// Change is one row changed by a commit: Before is nil for an insert,
// After is nil for a delete.
type Change[R any] struct {
	Before *R `json:",omitempty"`
	After  *R `json:",omitempty"`
}

// JobChange is one jobs row changed by a commit.
type JobChange = Change[JobRow]

// WorkerChange is one workers row changed by a commit.
type WorkerChange = Change[WorkerRow]

// LeaseChange is the lease row changed by a commit.
type LeaseChange = Change[LeaseRow]

// ScheduleChange is one schedules row changed by a commit.
type ScheduleChange = Change[ScheduleRow]

// QueueChange is one queues row changed by a commit.
type QueueChange = Change[QueueRow]
