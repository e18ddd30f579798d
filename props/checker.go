package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/robfig/cron/v3"
)

// A Checker follows a history one event at a time and reports broken
// promises. Safety properties are decided by Step as each event arrives;
// liveness (no lost jobs) by Finish, once the run has quiesced. A Checker
// keeps only what later events can still depend on (live rows, open
// executions, the lease), so each Step costs O(rows the event touches).
// It is not safe for concurrent use.
type Checker struct {
	params Params
	crons  map[string]cron.Schedule
	keys   map[string]string // schedule -> the stored unique key its runs carry

	// scope is the commit in progress's scope, its lists kept between
	// commits (commit).
	scope commitScope

	index    int       // events seen so far (Step counts one after checking it)
	lastSeq  int64     // Seq of the previous event
	lastTime time.Time // Time of the previous event

	jobs       map[ulid.ULID]*jobState
	chains     map[ulid.ULID]*chainState // by the id of the chain's attempt 0
	workers    map[ulid.ULID]WorkerRow
	runningBy  map[ulid.ULID]map[ulid.ULID]struct{} // worker -> jobs running under it
	lease      *LeaseRow
	terms      map[ulid.ULID]LeaseRow // each holder's latest lease term (CommitOrder only)
	schedRows  map[string]ScheduleRow
	scheds     map[string]*scheduleState
	procs      map[string]*procState
	workerProc map[ulid.ULID]string // worker id -> the process acting as it
	lastProc   procMemo
	duty       *Event               // the leader duties in progress, if any
	keyHolders map[string]ulid.ULID // unique key -> the row holding it
	// keyReleased: unique key -> the row that last let it go and the store
	// time of that commit (CommitOrder only: scheduleSkip).
	keyReleased map[string]keyRelease
	queues      queueIndex
	partitions  keyIndex
	sequences   keyRows
	// seqHolders: of sequences, the rows that hold theirs (holdsSequence),
	// where sequences holds every row the run had (seqholders.go).
	seqHolders keyRows
	deps       depIndex
	batches    batchIndex
	cancelsDue []cancelDue  // handlers a check found cancelled, to be stopped before time moves on
	shutdowns  []*procState // processes in a graceful shutdown, in the order they began
	drainDue   []*procState // processes at their drain deadline, to cancel before time moves on
	waits      waits        // processes waiting for a tick they owe
	vacuum     vacuumState
	sealed     sealedIndex // jobs with encrypted fields (encrypted.go)
	retention  retentionState
	passDone   passDone
	beats      cadence // each worker's tick of its last heartbeat (property 40)
	leaseTicks cadence // ... and of its last lease pass (property 41)

	found      []Violation // violations of the current event
	violations []Violation // every violation so far
}

// jobState is what the checker knows of one job row.
type jobState struct {
	row     JobRow
	chain   ulid.ULID     // id of attempt 0 of its chain (zero: unknown)
	linked  bool          // its next_attempt_id was set at some point
	decided Decision      // the decision of its execution, if one ended while the row ran under it
	output  string        // the output that execution recorded
	snooze  time.Duration // the wait that execution's Snooze decision asked for
	// unlogged: the row failed under its execution's worker, and the process
	// crashed before logging that execution's end, so its decision is lost
	// (a live run's log is written just after the commit; the simulator
	// records both at once, so this never happens there).
	unlogged bool
	exec     *execution
	proc     string // the process that started it, while the row is not terminal
}

// chainState is one job's chain of attempts.
type chainState struct {
	tail     ulid.ULID // its latest attempt
	schedule string
	open     []*execution // executions of its rows in progress
	// redriven: an operator retried a row of the chain (a redrive of a
	// dead-lettered row, or a bulk retry), so its later rows may go past
	// the retry bound (props/deadletter.go).
	redriven bool
}

// execution is one handler run in progress.
type execution struct {
	start     Event
	proc      string      // key of the process running it
	chain     *chainState // its job's chain, nil if unknown
	cancelled bool        // its context was cancelled (ExecsCancelled, ExecCancelled)
}

// New returns a Checker for a run with params. It fails if a backoff
// policy is invalid, MaxRetries, MaxSnoozes or a queue's MaxAttempts is
// negative, a schedule's cron expression
// does not parse or two schedules share a name.
func New(params Params) (*Checker, error) {
	if err := params.Backoff.Validate(); err != nil {
		return nil, fmt.Errorf("props: %w", err)
	}
	if params.MaxRetries < 0 {
		return nil, fmt.Errorf("props: MaxRetries %d is negative", params.MaxRetries)
	}
	if params.MaxSnoozes < 0 {
		return nil, fmt.Errorf("props: MaxSnoozes %d is negative", params.MaxSnoozes)
	}
	for _, p := range params.Policies {
		if p.MaxAttempts < 0 {
			return nil, fmt.Errorf("props: the policy of queue %q: MaxAttempts %d is negative", p.Queue, p.MaxAttempts)
		}
		if p.Backoff != nil {
			if err := p.Backoff.Validate(); err != nil {
				return nil, fmt.Errorf("props: the policy of queue %q: %w", p.Queue, err)
			}
		}
	}
	c := &Checker{
		params:      params,
		crons:       make(map[string]cron.Schedule, len(params.Schedules)),
		keys:        make(map[string]string),
		jobs:        make(map[ulid.ULID]*jobState),
		chains:      make(map[ulid.ULID]*chainState),
		workers:     make(map[ulid.ULID]WorkerRow),
		runningBy:   make(map[ulid.ULID]map[ulid.ULID]struct{}),
		schedRows:   make(map[string]ScheduleRow),
		scheds:      make(map[string]*scheduleState),
		procs:       make(map[string]*procState),
		workerProc:  make(map[ulid.ULID]string),
		keyHolders:  make(map[string]ulid.ULID),
		keyReleased: make(map[string]keyRelease),
		queues:      newQueueIndex(),
		partitions:  newKeyIndex(),
		sequences:   keyRows{},
		seqHolders:  keyRows{},
		deps:        depIndex{parents: map[ulid.ULID][]ulid.ULID{}},
		batches:     batchIndex{members: map[ulid.ULID][]ulid.ULID{}, waiting: map[ulid.ULID]bool{}},
	}
	parser := cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	for _, s := range params.Schedules {
		if _, dup := c.crons[s.Name]; dup {
			return nil, fmt.Errorf("props: schedule %q is listed twice", s.Name)
		}
		sched, err := parser.Parse(s.Cron)
		if err != nil {
			return nil, fmt.Errorf("props: schedule %q: cron expression %q: %w", s.Name, s.Cron, err)
		}
		c.crons[s.Name] = sched
		if s.UniqueKey != "" {
			c.keys[s.Name] = s.UniqueKey
		}
	}
	return c, nil
}

// Step checks one event against the safety properties and returns the first
// violation it causes, or nil. Every violation is also kept for Violations.
// Step does not change e or keep it, nor anything e points to.
func (c *Checker) Step(e *Event) *Violation {
	c.found = c.found[:0]
	c.checkOrder(e)
	c.checkCancelsDue(e.Time)
	c.checkShutdownBounds(e.Time)
	c.checkDrainDue(e.Time)
	c.checkWaits(e.Time)
	switch e.Kind {
	case Commit:
		c.commit(e)
	case ExecStarted:
		c.execStarted(e)
	case ExecEnded:
		c.execEnded(e)
	case Crashed:
		c.crashed(e)
	case Restarted:
		c.restarted(e)
	case ShutdownBegan:
		c.shutdownBegan(e)
	case Stalled:
		c.proc(e).stalledAt = e.Time
	case Resumed:
		c.resumed(e)
	case ShutdownAbandoned:
		c.shutdownAbandoned(e)
	case StopRequested:
		c.stopRequested(e)
	case ExecsCancelled:
		c.execsCancelled(e)
	case ExecCancelled:
		c.execCancelled(e)
	case CancelChecked:
		c.cancelChecked(e)
	case ShutdownCompleted:
		c.shutdownCompleted(e)
	case DeclaredDead:
		c.declaredDead(e)
	case Heartbeat:
		c.heartbeat(e)
	case LeasePass:
		c.leasePass(e)
	case DutiesStarted:
		c.dutiesStarted(e)
	case DutiesEnded:
		c.dutiesEnded(e)
	case ResultFenced:
		c.resultFenced(e)
	case ScheduleFired:
		c.scheduleFired(e)
	case VacuumClaimed:
		c.vacuumClaimed(e)
	case Encrypted:
		c.encrypted(e)
	case VacuumStarted:
		c.vacuumStarted(e)
	case DrainDeadline:
		c.drainDeadline(e)
	case ReleaseAbandoned:
		c.proc(e).releaseGivenUp = true
	case TickStarted:
		c.tickStarted(e)
		c.proc(e).removalsTicked()
	case Waiting:
		c.waiting(e)
	case Notified:
		c.notified(e)
	case JobPass:
		c.jobPass(e)
		c.checkHeartbeatDue(e)
		c.checkLeaseDue(e)
		c.checkPassQueues(c.proc(e), e)
	case QueueRemoved:
		c.queueRemoved(e)
	case QueueAdded:
		c.queueAdded(e)
	case QueueDrained:
		c.queueDrained(e)
	default:
		c.report(WellFormed, fmt.Sprintf("unknown event kind %q", e.Kind))
	}
	c.index++
	if len(c.found) == 0 {
		return nil
	}
	c.violations = append(c.violations, c.found...)
	v := c.found[0]
	return &v
}

// Finish checks the liveness property on the state the history ended in and
// returns its violations (also kept for Violations). Call it once, after the
// quiescence phase.
func (c *Checker) Finish() []Violation {
	c.found = c.found[:0]
	c.checkNoLostJobs()
	out := append([]Violation(nil), c.found...)
	c.violations = append(c.violations, out...)
	return out
}

// Violations returns every violation found so far, in the order found.
func (c *Checker) Violations() []Violation {
	return append([]Violation(nil), c.violations...)
}

// Check runs a whole history through a Checker, Finish included, and
// returns every violation in the order found. It fails only if the
// history's Params are unusable.
func Check(h History) ([]Violation, error) {
	c, err := New(h.Params)
	if err != nil {
		return nil, err
	}
	for i := range h.Events {
		c.Step(&h.Events[i])
	}
	c.Finish()
	return c.Violations(), nil
}

// checkOrder stamps the event as the current one and enforces that Seq
// strictly increases and, but in a history in CommitOrder, that Time never
// decreases.
func (c *Checker) checkOrder(e *Event) {
	prevSeq, prevTime, first := c.lastSeq, c.lastTime, c.index == 0
	c.lastSeq, c.lastTime = e.Seq, e.Time
	if first {
		return
	}
	if e.Seq <= prevSeq {
		c.report(WellFormed, fmt.Sprintf("seq %d does not follow seq %d", e.Seq, prevSeq))
	}
	if e.Time.Before(prevTime) && !c.params.CommitOrder {
		c.report(WellFormed, fmt.Sprintf("store time goes back from %s to %s", formatTime(prevTime), formatTime(e.Time)))
	}
}

// report records a violation of p at the current event; detail adds the
// rows and events involved.
func (c *Checker) report(p Property, msg string, detail ...func(*Violation)) {
	v := Violation{Property: p, Index: c.index, Seq: c.lastSeq, Time: c.lastTime, Message: msg}
	for _, d := range detail {
		d(&v)
	}
	c.found = append(c.found, v)
}

// withJobs adds job rows to a violation.
func withJobs(rows ...JobRow) func(*Violation) {
	return func(v *Violation) { v.Jobs = append(v.Jobs, rows...) }
}

// withWorkers adds worker rows to a violation.
func withWorkers(rows ...WorkerRow) func(*Violation) {
	return func(v *Violation) { v.Workers = append(v.Workers, rows...) }
}

// withLease adds the lease row, if any, to a violation.
func withLease(l *LeaseRow) func(*Violation) {
	return func(v *Violation) {
		if l != nil {
			v.Leases = append(v.Leases, *l)
		}
	}
}

// withEvents adds earlier events to a violation.
func withEvents(es ...Event) func(*Violation) {
	return func(v *Violation) { v.Events = append(v.Events, es...) }
}
