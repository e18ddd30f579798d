package sim

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// Options are the parts of a run that are not derived from the seed.
type Options struct {
	// Trace receives the full trace, one line per event (-v); nil for none.
	Trace io.Writer
	// Backend makes the store under test; nil means the in-memory store.
	Backend NewBackend
	// TailLines is how many trace lines a Result keeps (default 30).
	TailLines int
	// Quiet runs without the trace, for many seeds at once: no line is
	// built or hashed, so Result's Tail, TraceHash and Lines stay empty and
	// a Report may name ids differently. The run itself is the same: replay
	// a failed seed without Quiet to see its trace. Ignored with Trace set.
	Quiet bool
	// Record, when set, receives every event of the run's history as it is
	// recorded, and the Result then carries Names (simulate -html draws both).
	Record func(props.Event)
	// Interleave, when set, runs each process's transactions on a gated
	// store of its own so that they overlap (see Interleaver); Backend must
	// then be a DiffBackend on the same schema, through which the
	// simulator reads back what each transaction committed.
	Interleave NewInterleaver
}

// Result is what one run found.
type Result struct {
	Scenario Scenario
	// Violation is the first broken property, nil when all held. Report
	// is its text with ids replaced by the trace's names (j12, w0.1).
	Violation *props.Violation
	Report    string
	// Err is a failure of the run itself (a store that cannot be built, a
	// core that refuses the config); the properties were not decided.
	Err error
	// Tail is the last trace lines, ending at the violation if there is one.
	Tail      []string
	TraceHash uint64
	Lines     int           // trace lines
	Events    int           // simulator events processed
	Virtual   time.Duration // virtual time simulated
	Faults    [numFaultKinds]int
	Marks     Marks
	Settled   bool // quiescence ended with every job settled before its bound
	// Names maps each job and worker row id to its name in the trace (j12,
	// w0.1); set only when Options.Record is.
	Names map[ulid.ULID]string
}

// Failed reports whether the run broke a property or could not run.
func (r *Result) Failed() bool { return r.Violation != nil || r.Err != nil }

// Epoch is virtual time zero: the store's clock starts here, unless the
// scenario says otherwise (Scenario.Start).
var Epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// start is where the scenario's store clock starts.
func (sc *Scenario) start() time.Time {
	if sc.Start.IsZero() {
		return Epoch
	}
	return sc.Start
}

type phase int

const (
	chaos phase = iota
	quiescence
	done
)

// sim is one run. Everything happens on the goroutine that called Run.
type sim struct {
	sc  Scenario
	cfg worker.Config
	ctx context.Context

	master  *clockrng.Rand
	execRng clockrng.Rand // startExec's draws, a child of master per job
	// returning is the execution whose attempt a process's worker runs
	// now (handler.go).
	returning *execution
	now       time.Duration // true time since Epoch, whole microseconds
	q         eventQueue
	be        Backend
	procs     []*proc
	phase     phase
	stopped   bool

	checker    *props.Checker
	onRecord   func(props.Event)
	freeTimers []*event // dispatched timer events, for timerEvent
	// changeBuf and rowBuf hold a commit's job changes on their way to
	// the checker, workerBuf and workerRowBuf its worker changes
	// (commitBuffers).
	changeBuf    []props.JobChange
	rowBuf       []props.JobRow
	workerBuf    []props.WorkerChange
	workerRowBuf []props.WorkerRow
	// canonJobIDs and canonJobs are jobChanges' room for canonicalInto,
	// canonWorkerIDs and canonWorkers workerChanges'.
	canonJobIDs    []ulid.ULID
	canonJobs      []change[store.Job]
	canonWorkerIDs []ulid.ULID
	canonWorkers   []change[store.Worker]
	histSeq        int64
	stamped        stamped // record's last store time
	// faultOf is sc.fault(k) for each kind, looked up once: the store
	// calls draw kinds several times each. It points into sc.Faults, whose
	// settings nothing moves during a run.
	faultOf [numFaultKinds]*FaultSetting
	// observed is observe's history event, which Translate clears: a
	// variable of observe's own would be cleared twice, every event.
	observed props.Event
	tr       tracer
	res      Result

	client     *clockrng.Rand // ids of the enqueuing client
	uniqueRnd  *clockrng.Rand // its unique keys and bulk bursts
	policyRnd  *clockrng.Rand // the jobs' own bounds
	globalRnd  [numFaultKinds]*clockrng.Rand
	procRoots  [numFaultKinds]*clockrng.Rand // the parents of procs' fault sources (procRand)
	silenceRnd *clockrng.Rand                // draws which shutdowns meet a silent store
	rows       rowBook
	inserted   []ulid.ULID             // every job row committed, in commit order: what an operator may cancel
	batches    map[ulid.ULID]batchSeen // per batch not yet released: what its members went through (batch.go)
	names      names
	outages    []window
	execSeq    uint64
	lastHolder ulid.ULID                    // the last lease holder seen, kept across deletions
	terms      leaseTerms                   // the lease terms of the rows and of the core's reports (leaseterm.go)
	rates      map[string]*props.RateWindow // per queue with a rate: its starts, for MarkRateBound
	noHistory  map[string]bool              // the queues set to keep no history, for historyMarks
	il         *ilState                     // nil unless transactions are interleaved
	keys       *simKeys                     // nil unless fault kind Encryption is on (encryption.go)
	// bulk is the bulk action whose batch runs, nil between them: the
	// client's commits carry it (bulk.go).
	bulk *props.BulkRequest
}

// window is a span of true time.
type window struct{ from, to time.Duration }

// GCPercent is the garbage collector's target (debug.SetGCPercent) for a
// process that runs many seeds, as simulate and this package's tests do:
// each run allocates a few hundred kilobytes and keeps none of it, so
// collecting less often saves processor time for a few more megabytes.
// 2,000 seeds, alternating, 2026-12-07: the default 100 took a third more
// time than 400; 800 ran 7-14% more events a second than 400 (peak
// resident 54-68 MB against 41-47); 1600 no more than 800, at twice its
// memory.
const GCPercent = 800

// Run simulates sc and checks every property. It never panics on a
// violation: the first one stops the run and is returned.
func Run(sc Scenario, opt Options) Result {
	s, err := newSim(sc, opt)
	if err != nil {
		return Result{Scenario: sc, Err: err}
	}
	defer s.stopCoroutines()
	defer s.drainTrips()
	s.simulate()
	// Calls still parked on store latency unwind now; the run is over and
	// what they do is not part of it.
	s.tr.closed = true
	s.drainTrips()
	s.stopCoroutines()
	if v := s.res.Violation; v != nil {
		s.res.Report = s.names.replaceIDs(v.String())
	}
	s.res.Tail = s.tr.tail()
	if !s.tr.quiet {
		s.res.TraceHash = s.tr.hash
	}
	s.res.Lines = s.tr.lines
	s.res.Virtual = s.now
	if opt.Record != nil {
		s.res.Names = s.names.all()
	}
	if s.tr.err != nil && s.res.Err == nil {
		s.res.Err = fmt.Errorf("writing the trace: %w", s.tr.err)
	}
	return s.res
}

// simulate runs the events to the end. A broken invariant of the worker
// or the store panics; it ends the run as a failure with the state the
// panic names, and the trace up to it.
func (s *sim) simulate() {
	defer func() {
		if r := recover(); r != nil {
			s.tr.printf(s.now, "sim", "PANIC %v", r)
			s.tr.closed = true
			s.stop(nil, fmt.Errorf("seed %d: %v", s.sc.Seed, r))
		}
	}()
	s.start()
	s.runUntil(time.Duration(1 << 62))
	if !s.stopped {
		s.finish()
	}
}

func newSim(sc Scenario, opt Options) (*sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	ownClock := opt.Backend == nil && opt.Interleave == nil // see stampNow
	if opt.Backend == nil {
		opt.Backend = MemBackend
	}
	if opt.TailLines == 0 {
		opt.TailLines = 30
	}
	s := &sim{sc: sc, ctx: context.Background(), master: clockrng.NewRand(sc.Seed)}
	s.rows.runsLeft = s.sc.runsLeft
	for k := range s.faultOf {
		s.faultOf[k] = s.sc.fault(FaultKind(k))
	}
	s.res.Scenario = sc
	s.tr = newTracer(opt.Trace, opt.TailLines, opt.Quiet && opt.Trace == nil)
	s.onRecord = opt.Record
	s.client = s.master.Child("client")
	s.uniqueRnd = s.master.Child("unique")
	s.policyRnd = s.master.Child("policy")
	s.names = newNames()
	s.cfg = workerConfig(&sc)
	if err := s.cfg.Validate(); err != nil {
		return nil, fmt.Errorf("scenario seed %d: %w", sc.Seed, err)
	}
	params := historyParams(&sc)
	// Interleaved transactions overlap: the checks that need them serial
	// are off.
	params.SerialTransactions = opt.Interleave == nil
	params.CommitOrder = opt.Interleave != nil
	checker, err := props.New(params)
	if err != nil {
		return nil, fmt.Errorf("scenario seed %d: %w", sc.Seed, err)
	}
	s.checker = checker
	now := s.storeNow
	if ownClock {
		now = s.stampNow
	}
	be, err := opt.Backend(now)
	if err != nil {
		return nil, fmt.Errorf("scenario seed %d: store: %w", sc.Seed, err)
	}
	s.be = be
	if opt.Interleave != nil {
		if _, ok := be.(*diffBackend); !ok {
			return nil, fmt.Errorf("scenario seed %d: interleaving reads commits back through a DiffBackend, not %T", sc.Seed, be)
		}
		s.il = &ilState{actors: map[string]*actor{}, sched: map[string]tripSlot{}, trips: newTripDraws(s.master)}
		actors := []string{"client"}
		for i := range sc.Workers {
			actors = append(actors, fmt.Sprintf("w%d", i))
		}
		il, err := opt.Interleave(s.actorsNow, actors)
		if err != nil {
			return nil, fmt.Errorf("scenario seed %d: interleaved stores: %w", sc.Seed, err)
		}
		s.il.il = il
	}
	return s, nil
}

// workerConfig is the configuration every simulated worker runs with.
func workerConfig(sc *Scenario) worker.Config {
	cfg := worker.DefaultConfig()
	for i := range sc.Queues {
		cfg.Queues = append(cfg.Queues, queueName(i))
	}
	cfg.MaxConcurrent, cfg.MaxFetch, cfg.MaxRetries = sc.MaxConcurrent, sc.MaxFetch, sc.MaxRetries
	cfg.PollInterval, cfg.PollJitter = sc.PollInterval.D(), sc.PollJitter
	cfg.HeartbeatInterval, cfg.LeaseTTL = sc.Heartbeat.D(), sc.LeaseTTL.D()
	cfg.LeaderInterval, cfg.DeadWorkerThreshold = sc.LeaderInterval.D(), sc.DeadThreshold.D()
	cfg.JobRetention, cfg.WorkerRetention = sc.JobRetention.D(), sc.WorkerRetention.D()
	cfg.CleanupBatch = cmp.Or(sc.CleanupBatch, cfg.CleanupBatch)
	cfg.CleanupInterval, cfg.DrainTimeout = sc.CleanupInterval.D(), sc.DrainTimeout.D()
	cfg.Backoff = sc.Backoff()
	cfg.CallTimeout = sc.CallTimeout.D()
	cfg.CallTimeout = cfg.WithDefaults().CallTimeout // the default follows DeadThreshold
	if n := sc.VacuumDeadRows(); n > 0 {
		cfg.VacuumDeadRows, cfg.VacuumInterval = n, sc.VacuumInterval.D()
		// A run lasts seconds to minutes of virtual time, so its vacuums
		// get a deadline they can reach, not production's hour.
		cfg.VacuumTimeout = max(cfg.VacuumInterval, cfg.CallTimeout)
	}
	cfg.MaxSnoozes, cfg.Policies = sc.Policy.MaxSnoozes, sc.Policy.policies()
	for _, c := range sc.Crons {
		cfg.Schedules = append(cfg.Schedules, worker.ScheduleSpec{Name: c.Name, Cron: c.Cron, Queue: c.Queue, Payload: []byte(`{"cron":"` + c.Name + `"}`),
			UniqueKey: c.UniqueKey})
	}
	return cfg
}

// trueBound is a bound d of the runners' local clocks in true time: a
// local clock runs at most 20% slow (Drift), and a sum of timers drifts
// by as much; a millisecond covers the rounding.
func trueBound(d time.Duration) time.Duration { return d*5/4 + time.Millisecond }

// backoffBounds are engine.BackoffBound in true time for one failed tick,
// two, and so on until the error backoff reaches its cap.
func backoffBounds(cfg worker.Config) []time.Duration {
	var bs []time.Duration
	for f := 1; f <= 64; f++ {
		b := trueBound(engine.BackoffBound(cfg, f))
		if len(bs) > 0 && b == bs[len(bs)-1] {
			break
		}
		bs = append(bs, b)
	}
	return bs
}

// historyParams are the settings the properties are checked against.
func historyParams(sc *Scenario) props.Params {
	cfg := workerConfig(sc)
	p := props.Params{
		MaxRetries: sc.MaxRetries, MaxConcurrent: sc.MaxConcurrent, MaxFetch: sc.MaxFetch, Backoff: sc.Backoff(),
		LeaseTTL: sc.LeaseTTL.D(), DeadThreshold: sc.DeadThreshold.D(),
		ShutdownAttempts: engine.ShutdownAttempts, DrainTimeout: sc.DrainTimeout.D(), RepeatWindow: engine.RepeatWindow,
		ShutdownBound: trueBound(engine.ShutdownBound(cfg)),
		CancelBound:   trueBound(engine.CancelBound(cfg)), ReleaseBound: trueBound(engine.ReleaseBound(cfg)),
		PollBound: trueBound(engine.PollBound(cfg)), BackoffBounds: backoffBounds(cfg),
		WakeBound: trueBound(engine.WakeBound), Queues: cfg.Queues,
		SerialTransactions: true, // one goroutine: transactions never overlap
		VacuumDeadRows:     sc.VacuumDeadRows(), VacuumInterval: sc.VacuumInterval.D(),
		Policies: sc.Policy.params(), MaxSnoozes: sc.Policy.MaxSnoozes,
		JobRetention: cfg.JobRetention, WorkerRetention: cfg.WorkerRetention, CleanupBatch: cfg.CleanupBatch,
	}
	if f := sc.fault(ClockJump); f == nil || !f.On {
		// A local clock set back stretches the intervals the core measures
		// by the jump (a monotonic clock, as production's, does not jump).
		p.HeartbeatBound, p.LeaderBound = trueBound(cfg.HeartbeatInterval), trueBound(cfg.LeaderInterval)
	}
	for _, c := range sc.Crons {
		spec := props.ScheduleSpec{Name: c.Name, Cron: c.Cron}
		if c.UniqueKey != "" {
			spec.UniqueKey = storedKey(c.UniqueKey)
		}
		p.Schedules = append(p.Schedules, spec)
	}
	return p
}

// inflight counts the executions in flight on all processes.
func (s *sim) inflight() int {
	n := 0
	for _, p := range s.procs {
		n += len(p.execs)
	}
	return n
}

// storeNow is the store's time now.
func (s *sim) storeNow() time.Time { return s.sc.start().Add(s.now) }

// at schedules e at true time t (never before now), in whole microseconds
// like the store's clock.
func (s *sim) at(t time.Duration, e *event) {
	t = max(t, s.now).Truncate(time.Microsecond)
	e.at = t
	s.q.push(e)
}

// after schedules e d from now.
func (s *sim) after(d time.Duration, e *event) { s.at(s.now+d, e) }

// runUntil processes events due at or before target, in order.
func (s *sim) runUntil(target time.Duration) {
	for !s.stopped {
		e := s.q.peek()
		if e == nil || e.at > target {
			return
		}
		s.q.pop()
		if e.at > s.now {
			s.now = e.at
			if s.il != nil {
				s.il.now.Store(int64(s.now))
			}
		}
		s.res.Events++
		s.dispatch(e)
	}
}

// stop ends the run at a violation or an error of the run itself.
func (s *sim) stop(v *props.Violation, err error) {
	if s.stopped {
		return
	}
	s.stopped = true
	s.res.Violation = v
	if err != nil && s.res.Err == nil {
		s.res.Err = err
	}
}

// finish runs the liveness check after quiescence.
func (s *sim) finish() {
	s.phase = done
	vs := s.checker.Finish()
	if s.checker.RetentionKept() > 0 {
		s.res.Marks.set(MarkRetentionKept)
	}
	s.tr.printf(s.now, "sim", "end settled=%v violations=%d", s.res.Settled, len(vs))
	if len(vs) > 0 {
		v := vs[0]
		s.stop(&v, nil)
	}
}
