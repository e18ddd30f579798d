package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// errShutDown is returned by tick, release and shutdown once shutdown has
// completed: a core is not reused after a graceful shutdown.
var errShutDown = errors.New("worker core is shut down")

// maxErrorBackoff caps the wait between ticks while the store keeps
// failing (HeartbeatInterval caps it too: errorBackoff).
const maxErrorBackoff = 30 * time.Second

// Core is one worker's queue logic, driven by its runner's Policy (which
// calls tick, runDuties, finished, beginShutdown, release and shutdown,
// never concurrently). It reads no clock (local time is tick's argument),
// starts no goroutine, draws randomness only from the source it was given,
// and blocks only on the store.
type Core struct {
	st  store.Store
	cfg Config
	obs Observer
	ref RefObserver // obs, if it takes events by reference
	// emitted is the slot of the events emit delivers: see event.
	emitted Event

	// Independent children of the caller's source, so that drawing poll
	// jitter does not change the ids or backoff delays a seed produces.
	idRand, pollRand, backoffRand *clockrng.Rand

	schedules []ScheduleSpec // sorted by name
	crons     map[string]*cronTimes
	noNext    map[string]bool // schedules reported to have no next cron time

	id           ulid.ULID // zero until registered, and after being declared dead
	leader       bool
	leaseUntil   time.Time // when the lease we last saw committed expires
	dutiesDue    bool      // the last Tick's lease pass found us leading
	shuttingDown bool
	closed       bool
	vacuum       vacuumState // this core's vacuum (vacuum.go)

	// executing holds the jobs handed to the driver that have not finished.
	// A job's StartedBy is the worker id it was reserved under: an earlier
	// incarnation's after a re-registration. The values point into the
	// slices the store returned (handOut): a job row is larger than a map
	// keeps in place, so a map of rows allocated each one anew, 42% of
	// what the worker process allocated per job in the throughput
	// benchmark.
	executing map[ulid.ULID]*store.Job
	pending   []pendingResult // finished jobs whose result is not yet recorded
	// removed holds the queues taken out of cfg.Queues whose drain the
	// policy has not reported yet (queues.go).
	removed map[string]bool
	// stopped holds the executing jobs whose handlers' contexts the driver
	// cancelled because their rows were cancelled; contextsDone says it
	// cancelled every job's context (the drain deadline). The cancel check
	// asks about neither.
	stopped      map[ulid.ULID]bool
	contextsDone bool
	// cancelFound collects the executing jobs the current tick's cancel
	// checks found cancelled, for the driver to stop.
	cancelFound []ulid.ULID
	// unseenReserve says a Reserve under the current id may have committed
	// without the core seeing it; the next job pass recovers its
	// reservations with RunningJobs. Being declared dead clears it, so it
	// never concerns an earlier id.
	unseenReserve bool
	// wokenBy: why the current tick came (Action.Wake); read only by the
	// planted bugs wake-reserves-nothing and poll-reserves-nothing.
	wokenBy string

	lastHeartbeat, lastLeader, lastCleanup time.Time // local clock
	// retentionOwed: the last retention pass deleted a full batch, so the
	// next leader pass applies retention again.
	retentionOwed   bool
	lastCancelCheck time.Time // local clock
	failures        int       // consecutive failed ticks

	now    time.Time // the local time of the current call
	events []Event   // buffered until the current transaction commits
	// txBody is runTxBody, bound once: inTx hands it to the store with the
	// call's ctx and fn in txCtx and txFn, so a transaction costs no closure.
	txBody func(store.Tx) error
	txCtx  context.Context
	txFn   func(tx store.Tx, now time.Time) error
	// leaseBody is takeLease, bound once, and leaseFound what its last
	// run found: the lease tick runs every few seconds on every worker.
	leaseBody  func(tx store.Tx, now time.Time) error
	leaseFound struct {
		held  bool
		until time.Time
	}
}

// pendingResult is a result waiting to be written. tries counts earlier
// transactions that tried to write it and whose outcome is unknown.
type pendingResult struct {
	Result
	job   *store.Job // as handed to the driver (see executing)
	tries int
}

// tickResult is what one Tick hands back to its driver.
type tickResult struct {
	// Start are the jobs to execute now, in id order. Their reservations
	// have committed. Start them even when Tick also returns an error: the
	// error then concerns a later phase of the tick.
	Start []store.Job
	// Cancel are executing jobs whose rows the tick found cancelled, in id
	// order: their handlers' contexts are to be cancelled.
	Cancel []ulid.ULID
}

// NewCore returns a core for cfg, which must pass Validate. rnd supplies
// every random choice (ids, poll jitter, backoff jitter); obs may be nil.
// The core registers its worker row on the first Tick.
func NewCore(st store.Store, cfg Config, rnd *clockrng.Rand, obs Observer) (*Core, error) {
	if st == nil {
		return nil, errors.New("worker: NewCore needs a store")
	}
	if rnd == nil {
		return nil, errors.New("worker: NewCore needs a random source")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if obs == nil {
		obs = ObserverFunc(func(Event) {})
	}
	c := &Core{
		st: st, cfg: cfg, obs: obs,
		idRand: rnd.Child("ids"), pollRand: rnd.Child("poll"), backoffRand: rnd.Child("backoff"),
		crons:     map[string]*cronTimes{},
		noNext:    map[string]bool{},
		executing: map[ulid.ULID]*store.Job{},
		stopped:   map[ulid.ULID]bool{},
		removed:   map[string]bool{},
	}
	c.ref, _ = obs.(RefObserver)
	c.txBody, c.leaseBody = c.runTxBody, c.takeLease
	c.cfg.Queues, c.cfg.Policies = slices.Compact(slices.Sorted(slices.Values(cfg.Queues))), maps.Clone(cfg.Policies)
	c.cfg.DeadLetters = maps.Clone(cfg.DeadLetters)
	c.schedules = slices.Clone(cfg.Schedules)
	slices.SortFunc(c.schedules, func(a, b ScheduleSpec) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range c.schedules {
		sched, _ := parseCron(s.Cron) // Validate checked it
		c.crons[s.Name] = &cronTimes{sched: sched}
	}
	return c, nil
}

// ID returns the current worker id: zero before the first registration and
// between being declared dead and registering again.
func (c *Core) ID() ulid.ULID { return c.id }

// isLeader reports whether the core believes it holds the lease. The belief
// only decides whether to try leader duties; the duties themselves re-check
// the lease in their transaction.
func (c *Core) isLeader() bool { return c.leader }

// runningIDs returns the jobs handed to the driver that have not finished, in
// id order, including jobs reserved under an earlier worker id.
func (c *Core) runningIDs() []ulid.ULID {
	return slices.SortedFunc(maps.Keys(c.executing), func(a, b ulid.ULID) int { return a.Compare(b) })
}

// finished reports that a job handed out by Tick has ended; its result is
// written by the next Tick (or Shutdown). Results for jobs the core does not
// count as running (unknown, already finished, or released) are ignored.
func (c *Core) finished(r Result) {
	job, ok := c.executing[r.JobID]
	if !ok {
		return
	}
	delete(c.executing, r.JobID)
	delete(c.stopped, r.JobID)
	c.pending = append(c.pending, pendingResult{Result: r, job: job})
	e := c.event(EventJobFinished, job.StartedBy)
	e.Job, e.Decision, e.Reason, e.Output = *job, r.Decision, r.Reason, r.Output
	if r.Decision == Snooze {
		e.Delay = r.Snooze
	}
	c.emit(e)
}

// full reports whether every slot runs a job.
func (c *Core) full() bool { return len(c.executing) >= c.cfg.MaxConcurrent }

// nextPoll returns how long the driver should wait before the next Tick
// when nothing wakes it: the poll interval with jitter, cut short when the
// heartbeat falls due, or a leader's lease is half gone, first (a poll
// interval longer than either must not let a live worker look dead or
// lose its lease), or, after a Tick that
// failed, an exponential backoff (poll interval × 2^(failures−1), capped at
// 30 s, same jitter). While backing off the driver should not let finished
// jobs or notifications cut the wait short.
func (c *Core) nextPoll() time.Duration {
	if c.failures > 0 {
		failures := c.failures
		if mutant.On(mutant.BackoffOffByOne) {
			failures++
		}
		cfg := c.cfg
		if mutant.On(mutant.BackoffPastHeartbeat) {
			cfg.HeartbeatInterval = maxErrorBackoff
		}
		return clockrng.Jitter(c.pollRand, errorBackoff(cfg, failures), c.cfg.PollJitter)
	}
	d := clockrng.Jitter(c.pollRand, c.cfg.PollInterval, c.cfg.PollJitter)
	if mutant.On(mutant.PollTwice) {
		d *= 2
	}
	if c.id == (ulid.ULID{}) || c.shuttingDown {
		return d
	}
	due := untilDue(c.now, c.lastHeartbeat, c.cfg.HeartbeatInterval)
	if c.leader {
		// Renew with half the lease left, as a worker polling faster would.
		due = min(due, untilDue(c.now, c.lastLeader, max(c.cfg.LeaseTTL/2, c.cfg.LeaderInterval)))
	}
	// Never wait less than a tenth of the shortest of the three: a local
	// clock that moves slower than the timers (stalled, or coarse) would
	// otherwise see the same few nanoseconds left tick after tick.
	floor := min(c.cfg.PollInterval, c.cfg.HeartbeatInterval, c.cfg.LeaseTTL/2) / 10
	return min(d, max(due, floor))
}

// untilDue returns how long after now interval will have passed since last,
// or an unbounded wait when last is unset or that time is not ahead (the
// tick just past did what was due, or could not, and retries on its poll).
func untilDue(now, last time.Time, interval time.Duration) time.Duration {
	if left := last.Add(interval).Sub(now); !last.IsZero() && left > 0 {
		return left
	}
	return math.MaxInt64
}

// failing reports whether the last Tick failed, so the driver is backing off.
func (c *Core) failing() bool { return c.failures > 0 }

// errorBackoff is the nominal wait before the next tick after failures
// consecutive failed ticks: poll × 2^(failures−1), at least poll, at most
// 30 s, and never longer than HeartbeatInterval. A healthy worker's wait
// ends in time for its heartbeat; a failing one must too, or a worker
// whose store came back (a long poll interval, a few failures) stays
// silent past the dead threshold and is declared dead while it runs jobs.
func errorBackoff(cfg Config, failures int) time.Duration {
	ceiling := min(maxErrorBackoff, cfg.HeartbeatInterval)
	b := clockrng.Backoff{Base: cfg.PollInterval, Factor: 2, Max: ceiling}
	// Clamp before subtracting, which would wrap math.MinInt around.
	return max(b.Nominal(max(failures, 1)-1), min(cfg.PollInterval, ceiling))
}

// beginShutdown stops the core from reserving jobs and from lease
// maintenance and leader duties. Ticks still record finished results.
func (c *Core) beginShutdown() { c.shuttingDown = true }

// note buffers an event of the current transaction and returns it, set
// to kind, worker and the store time at, for the caller to fill in before
// it notes another. It is built in the buffer: an Event is near a
// kilobyte, and a literal passed by value was first written to the stack,
// on cold cache lines in the simulator (see event).
func (c *Core) note(kind EventKind, worker ulid.ULID, at time.Time) *Event {
	c.events = append(c.events, Event{Kind: kind, Worker: worker, Local: c.now, StoreTime: at})
	return &c.events[len(c.events)-1]
}

// event returns the core's one slot for an event that needs no
// transaction, set to kind and worker and otherwise zero; the caller fills
// in the rest and hands it to emit. An Event is near a kilobyte: built as
// a value, passed and copied on to the observer, it took fresh stack lines
// at each step, a third of the simulator's cache write misses.
func (c *Core) event(kind EventKind, worker ulid.ULID) *Event {
	e := &c.emitted
	e.resetButJob(kind, worker)
	if e.Job.ID != (ulid.ULID{}) { // every event's row has an id
		e.Job = store.Job{}
	}
	return e
}

// emit delivers e, the slot event returned, stamped with the local time.
func (c *Core) emit(e *Event) {
	e.Local = c.now
	c.observe(e)
}

// observe hands e to the observer: in place to a RefObserver, a copy to
// any other.
func (c *Core) observe(e *Event) {
	if c.ref != nil {
		c.ref.ObserveRef(e)
		return
	}
	c.obs.Observe(*e)
}

// inTx runs fn in a transaction with the store time, delivering the events
// fn noted only if it committed. A failure is reported as EventStoreError
// naming phase, except the declared-dead signal, which callers handle.
func (c *Core) inTx(ctx context.Context, phase string, fn func(tx store.Tx, now time.Time) error) error {
	c.txCtx, c.txFn = ctx, fn
	err := c.st.InTx(ctx, c.txBody)
	c.txCtx, c.txFn = nil, nil
	return c.deliver(phase, err)
}

// runTxBody runs the fn of the inTx in progress with the store time.
func (c *Core) runTxBody(tx store.Tx) error {
	c.events = c.events[:0] // a store may run fn again
	now, err := tx.Now(c.txCtx)
	if err != nil {
		return fmt.Errorf("read store time: %w", err)
	}
	return c.txFn(tx, now)
}

// deliver ends a store call that noted events: if it succeeded they are
// delivered; if not they are dropped and the failure is reported as
// EventStoreError naming phase (but for the declared-dead signal, which
// callers handle). The buffer is kept for the next call, holding no rows.
func (c *Core) deliver(phase string, err error) error {
	events := c.events
	defer func() {
		clear(events)
		c.events = events[:0]
	}()
	if err != nil {
		if !isDead(err) {
			e := c.event(EventStoreError, c.id)
			e.Reason, e.Err = phase, err
			c.emit(e)
		}
		return fmt.Errorf("worker %s: %s: %w", c.id, phase, err)
	}
	for i := range events {
		c.observe(&events[i])
	}
	return nil
}

// deadError marks a store answer saying this worker is no longer live.
type deadError struct {
	worker ulid.ULID
	err    error
}

func (e *deadError) Error() string {
	return fmt.Sprintf("worker %s was declared dead: %v", e.worker, e.err)
}
func (e *deadError) Unwrap() error { return e.err }

// asDead turns ErrNotFound from an operation that needs a live worker into
// the declared-dead signal.
func asDead(worker ulid.ULID, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return &deadError{worker: worker, err: err}
	}
	return err
}

func isDead(err error) bool {
	_, dead := errors.AsType[*deadError](err)
	return dead
}

// due reports whether interval has passed on the local clock since last. A
// clock that jumped backwards counts as due, so a jump cannot stall it.
func due(now, last time.Time, interval time.Duration) bool {
	return last.IsZero() || now.Before(last) || now.Sub(last) >= interval
}
