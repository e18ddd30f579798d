package tickworktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/workerengine"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// Attempt is one run of a job's handler by WorkOne or Drain, as recorded.
type Attempt struct {
	// Job is the row after its result was recorded: completed, failed
	// with Reason, or snoozed.
	Job      store.Job
	Decision worker.Decision
	Reason   string // why it failed: the handler's error, its panic, its timeout
	// Retry is the next attempt's row (scheduled at the backoff delay) when
	// the decision was Retry and attempts remain, else nil.
	Retry *store.Job
	// Snooze is the row that runs the same attempt again (scheduled at the
	// snooze's wait) when the handler returned worker.Snooze and the job
	// had snoozes left, else nil.
	Snooze *store.Job
	// Output is what the handler recorded with worker.RecordOutput, as the
	// completed row keeps it (Job.Output); nil for none or a failed attempt.
	Output json.RawMessage
}

// WorkOne runs the handler of the next job due now on the queues that have
// handlers — the job a worker would reserve next — inline, and records its
// result as a worker does. It fails the test when no job is due; it does
// not move the clock (Advance or Drain do). Like a worker, it takes the
// job with the lowest id: jobs enqueued within the same millisecond of
// store time by separate calls get ids in no particular order (seeded,
// so the same on every run), while one EnqueueMany keeps its order.
func (k *Kit) WorkOne() Attempt {
	k.tb.Helper()
	a, ok, err := k.workOne(k.context())
	if err != nil {
		k.tb.Fatalf("tickworktest: WorkOne: %v", err)
	}
	if !ok {
		k.tb.Fatalf("tickworktest: WorkOne: no job is due at %s on the queues with handlers %q; %s",
			stamp(k.Now()), k.w.HandledQueues(), k.waitingSummary(k.context()))
	}
	return a
}

// Drain runs every job due on the queues that have handlers, in the order a
// worker would, moving the clock to each scheduled time when nothing is due
// now, until no job waits on those queues: retries run at their backoff
// times, snoozed jobs when their snooze ends, and jobs the handlers
// enqueue run too. When nothing is due it runs the leader's settling pass
// (store.Tx.SettleWaitingJobs), as a serving worker's leader would within
// a second: a batch's callback released by it runs too, and a job whose
// parent failed for good is cancelled. It returns the attempts in
// the order they ran. More than Options.MaxDrainAttempts runs fail the
// test, so a handler that always enqueues another job cannot make it run
// forever. Jobs on queues without a handler are left waiting; with no
// handler at all, Drain fails the test.
func (k *Kit) Drain() []Attempt {
	k.tb.Helper()
	ctx := k.context()
	if len(k.w.HandledQueues()) == 0 {
		k.tb.Fatalf("tickworktest: Drain: %v", errNoHandler)
	}
	var attempts []Attempt
	for {
		next, found, err := k.nextWaiting(ctx)
		if err != nil {
			k.tb.Fatalf("tickworktest: Drain: %v", err)
		}
		if !found {
			settled, err := k.settle(ctx)
			if err != nil {
				k.tb.Fatalf("tickworktest: Drain: %v", err)
			}
			if settled {
				continue
			}
			return attempts
		}
		if len(attempts) == k.max {
			k.tb.Fatalf("tickworktest: Drain ran %d attempts, its bound (Options.MaxDrainAttempts), and jobs still wait: %s",
				k.max, k.waitingSummary(ctx))
		}
		k.clock.set(next) // no change when a job is due already
		a, ok, err := k.workOne(ctx)
		if err != nil {
			k.tb.Fatalf("tickworktest: Drain, after %d attempts: %v", len(attempts), err)
		}
		if !ok { // due but not run: the kit's own bug, not the test's
			k.tb.Fatalf("tickworktest: Drain: a job scheduled at %s is due at %s and did not run; %s", stamp(next), stamp(k.Now()), k.waitingSummary(ctx))
		}
		attempts = append(attempts, a)
	}
}

// settle runs the leader's settling pass, as a serving worker's leader
// would within a second: a batch's callback waits for it after its last
// member ended. It reports whether it changed a job.
func (k *Kit) settle(ctx context.Context) (bool, error) {
	var settled []store.Job
	err := k.st.InTx(ctx, func(tx store.Tx) (err error) { settled, err = tx.SettleWaitingJobs(ctx); return err })
	if err != nil {
		return false, fmt.Errorf("settle waiting jobs: %w", err)
	}
	return len(settled) > 0, nil
}

// coreConfig is the configuration of a core of workOne: the worker's,
// the handlers' retry policies included, on queues, taking one job at a
// time, with no schedules.
func (k *Kit) coreConfig(queues []string) worker.Config {
	cfg := workerengine.Of(k.w).CoreConfig() // the handlers' retry policies included
	cfg.Queues, cfg.Schedules = queues, nil
	cfg.MaxConcurrent, cfg.MaxFetch = 1, 1
	// Every tick is a leader pass. A tick reserves before the duties that
	// follow it, so a scheduled job whose time came is promoted by the
	// first tick's duties and reserved by the second tick.
	cfg.LeaderInterval = time.Nanosecond
	return cfg
}

var errNoHandler = errors.New("no handler is registered: register the application's handlers on Kit.Worker() with worker.Handle")

// workOne runs the next due job with a core of its own, as a worker that
// starts, takes one job, runs it and shuts down gracefully would: its
// reservation, its result and the retry are written by the worker's code.
// It reports false when no job is due.
func (k *Kit) workOne(ctx context.Context) (Attempt, bool, error) {
	queues := k.w.HandledQueues()
	if len(queues) == 0 {
		return Attempt{}, false, errNoHandler
	}
	k.cores++
	core, err := engine.NewCore(k.st, k.coreConfig(queues), k.rand.ChildN("core", k.cores), nil)
	if err != nil {
		return Attempt{}, false, err
	}
	d := &oneJobDriver{ctx: ctx, policy: engine.NewPolicy(core), now: k.Now()}
	d.step(engine.Input{Kind: engine.InStarted})
	if d.job == nil && d.err == nil {
		d.step(engine.Input{Kind: engine.InTimer, Timer: engine.TimerPoll})
	}
	// Stop before the result arrives: a worker that is serving would
	// reserve the next job with the slot the result frees.
	d.step(engine.Input{Kind: engine.InStop})
	var r engine.Result
	if d.job != nil {
		r = workerengine.Of(k.w).Execute(ctx, *d.job)
		d.step(engine.Input{Kind: engine.InJobFinished, Result: r})
	}
	if d.err != nil {
		return Attempt{}, false, d.err
	}
	if !d.policy.Exited() {
		return Attempt{}, false, errors.New("tickworktest: the worker did not shut down after its job")
	}
	job := d.job
	if job == nil {
		return Attempt{}, false, nil
	}
	a, err := k.recorded(ctx, job.ID)
	a.Decision, a.Reason, a.Output = r.Decision, r.Reason, a.Job.Output
	return a, err == nil, err
}

// recorded reads back the row of job id and its retry.
func (k *Kit) recorded(ctx context.Context, id ulid.ULID) (Attempt, error) {
	var a Attempt
	err := k.st.InTx(ctx, func(tx store.Tx) error {
		var err error
		if a.Job, err = tx.GetJob(ctx, id); err != nil {
			return err
		}
		if a.Job.NextAttemptID.IsZero() {
			return nil
		}
		next, err := tx.GetJob(ctx, a.Job.NextAttemptID)
		if a.Job.Status == store.Snoozed {
			a.Snooze = &next
		} else {
			a.Retry = &next
		}
		return err
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("read back job %s: %w", id, err)
	}
	return a, nil
}

// oneJobDriver carries out a runner policy's actions inline for workOne:
// store calls at once, at a local time a nanosecond later each; the first
// job it is told to start is kept for the caller to run; timers are left
// to the caller, which fires them as inputs.
type oneJobDriver struct {
	ctx    context.Context
	policy *engine.Policy
	now    time.Time
	job    *store.Job
	err    error // the first failed store call's, or the exit's
}

func (d *oneJobDriver) step(in engine.Input) {
	for pending := []engine.Input{in}; len(pending) > 0; pending = pending[1:] {
		for _, a := range d.policy.Step(pending[0]) {
			switch a.Kind {
			case engine.ActCall:
				d.now = d.now.Add(time.Nanosecond)
				ret := d.policy.Do(d.ctx, a, d.now)
				if ret.Err != nil && d.err == nil {
					d.err = fmt.Errorf("tickworktest: store call %d: %w", a.Call, ret.Err)
				}
				pending = append(pending, ret)
			case engine.ActStart:
				if d.job == nil && len(a.Jobs) > 0 {
					j := a.Jobs[0]
					d.job = &j
				}
			case engine.ActVacuum: // at once: the kit's time stands still
				pending = append(pending, engine.Input{Kind: engine.InVacuumEnded, Err: d.policy.Vacuum(d.ctx)})
			case engine.ActExit:
				if a.Err != nil && d.err == nil {
					d.err = a.Err
				}
			}
		}
	}
}
