package storetest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// RunDifferential draws random sequences of store operations (rapid state
// machine), applies each to a store from openA and one from openB that share
// one clock, and fails unless both return the same results and errors (by
// errors.Is category) and hold the same rows after every step.
//
// checks is the number of sequences; 0 keeps rapid's default (100, or the
// -rapid.checks flag). A -rapid.checks given on the command line wins over
// checks. RunDifferential sets that flag for its duration, so it must not run
// in parallel with other rapid checks in the same test binary.
//
// Stores are opened with t (not a subtest), so their clean-ups run when t
// ends.
func RunDifferential(t *testing.T, openA, openB Opener, checks int) {
	defer setRapidFlag(t, "rapid.checks", checks)()
	defer setRapidFlag(t, "rapid.steps", diffSteps)()
	rapid.Check(t, func(rt *rapid.T) {
		clock := NewClock(Epoch)
		d := &diff{
			rt:    rt,
			ctx:   t.Context(),
			clock: clock,
			a:     openA(t, clock.Now),
			b:     openB(t, clock.Now),
			rnd:   clockrng.NewRand(rapid.Uint64().Draw(rt, "seed")),
		}
		rt.Repeat(map[string]func(*rapid.T){"": d.checkState, "step": d.step})
	})
}

// diffSteps is the average number of steps of one sequence unless
// -rapid.steps says otherwise: enough for workers to register, reserve,
// die and be rescued, and for retries to come due.
const diffSteps = 100

// setRapidFlag sets rapid's flag name to value unless it was given on the
// command line or value is 0, and returns the function that restores it.
func setRapidFlag(t *testing.T, name string, value int) func() {
	f := flag.Lookup(name)
	if value <= 0 || f == nil {
		return func() {}
	}
	explicit := false
	flag.Visit(func(v *flag.Flag) { explicit = explicit || v.Name == name })
	if explicit {
		return func() {}
	}
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(value)); err != nil {
		t.Fatalf("set -%s: %v", name, err)
	}
	return func() { _ = f.Value.Set(old) }
}

// diff is one sequence's pair of stores and what it knows about them.
type diff struct {
	rt    *rapid.T
	ctx   context.Context
	clock *Clock
	a, b  store.Store
	rnd   *clockrng.Rand

	// last is store A's rows as checkState last read them, which both
	// stores held then. Every step draws all its inputs before it runs
	// anything, so last is also the rows at draw time: pickRow aims at
	// them without reading the store again.
	last store.State

	history []string    // every step so far with its result, for failure reports
	workers []ulid.ULID // every worker id ever registered (or tried)
	jobs    []ulid.ULID // every job id ever inserted (or tried)
}

// op is one operation with its inputs already drawn; run returns its result
// formatted as text, so that both stores' results compare as strings.
type op struct {
	name string
	run  func(ctx context.Context, tx store.Tx) (string, error)
}

// runTx runs ops in one transaction on each store, requires the same
// outcome from both, and rolls the transaction back when abort is set.
func (d *diff) runTx(ops []op, abort bool) {
	d.onBoth(opNames(ops), "", func(st store.Store) (string, error) { return d.apply(st, ops, abort) })
}

// onBoth runs run on store A, then on store B, and fails unless both give
// the same text and the same error category. It records A's outcome in the
// history, after label when there is one (the text of runTx names its
// operations itself).
func (d *diff) onBoth(what, label string, run func(store.Store) (string, error)) {
	ra, errA := run(d.a)
	rb, errB := run(d.b)
	if ra != rb || errorCategory(errA) != errorCategory(errB) {
		d.rt.Fatalf("stores disagree on %s at %s:\nA: %s (error %v)\nB: %s (error %v)\n\nsteps so far:\n%s\n\nstate of A now:\n%s\nstate of B now:\n%s",
			what, ts(d.clock.Now()), ra, errA, rb, errB, strings.Join(d.history, "\n"), d.read(d.a), d.read(d.b))
	}
	if label != "" {
		label = " " + label
	}
	d.history = append(d.history, fmt.Sprintf("at %s%s (error %v):\n%s", ts(d.clock.Now()), label, errA, indent(ra)))
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// apply runs ops in one transaction on st. It stops at the first error,
// which rolls the transaction back, as a worker would.
func (d *diff) apply(st store.Store, ops []op, abort bool) (string, error) {
	var out []string
	err := st.InTx(d.ctx, func(tx store.Tx) error {
		for _, o := range ops {
			res, err := o.run(d.ctx, tx)
			out = append(out, fmt.Sprintf("%s => %s [%s]", o.name, res, errorCategory(err)))
			if err != nil {
				return err
			}
		}
		if abort {
			return errAbort
		}
		return nil
	})
	return strings.Join(out, "\n"), err
}

func opNames(ops []op) string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.name
	}
	return strings.Join(names, "; ")
}

// errorCategory names the store error err wraps, so that two stores'
// errors compare by meaning rather than by text.
func errorCategory(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{store.ErrNotFound, "not found"}, {store.ErrFenced, "fenced"}, {store.ErrConflict, "conflict"},
		{store.ErrInvalid, "invalid"}, {store.ErrUnavailable, "unavailable"}, {errAbort, "aborted"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err != nil {
		return "other error"
	}
	return "ok"
}

// checkState requires both stores to hold the same rows, and keeps them
// as d.last for the next step's draws.
func (d *diff) checkState(rt *rapid.T) {
	sa, sb := d.read(d.a), d.read(d.b)
	if !sa.Equal(sb) {
		rt.Fatalf("stores hold different rows:\nA:\n%s\nB:\n%s\nsteps so far:\n%s", sa, sb, strings.Join(d.history, "\n"))
	}
	d.last = sa
}

func (d *diff) read(st store.Store) store.State {
	s, err := store.Snapshot(d.ctx, st)
	if err != nil {
		d.rt.Fatalf("read state: %v", err)
	}
	return s
}

// advanceClock moves the shared clock, mostly forward by up to three
// minutes (past lease, dead-worker and retry thresholds), sometimes back.
func (d *diff) advanceClock(rt *rapid.T) {
	step := duration(rt, "advance", -time.Second, 3*time.Minute)
	if rapid.IntRange(0, 9).Draw(rt, "jump") == 0 {
		step = duration(rt, "jump by", 0, 48*time.Hour)
	}
	d.clock.Advance(step)
	d.history = append(d.history, fmt.Sprintf("clock moved by %v to %s", step, ts(d.clock.Now())))
}

// step draws one operation and runs it on both stores. Operations are
// drawn from stepKinds, where the ones that move a job through its life
// appear more often (and first, since rapid favours small indexes).
func (d *diff) step(rt *rapid.T) {
	switch kind := rapid.SampledFrom(stepKinds).Draw(rt, "op"); kind {
	case "advanceClock":
		d.advanceClock(rt)
	case "rolledBack":
		d.rolledBack(rt)
	case "jobPass":
		d.jobPass(rt)
	case "vacuumJobs":
		d.vacuumJobs()
	default:
		d.runTx([]op{opDrawers[kind](rt, d)}, false)
	}
}

// rolledBack runs up to four random operations in one transaction that is
// then rolled back: the stores must agree on every result inside it and end
// up unchanged (checkState runs next).
func (d *diff) rolledBack(rt *rapid.T) {
	ops := make([]op, rapid.IntRange(1, 4).Draw(rt, "ops in rolled-back tx"))
	for i := range ops {
		ops[i] = opDrawers[rapid.SampledFrom(opNameList).Draw(rt, "op")](rt, d)
	}
	before := d.last // nothing has run since checkState read it
	d.runTx(ops, true)
	if after := d.read(d.a); !after.Equal(before) {
		rt.Fatalf("rolled-back transaction changed store A:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// jobPass draws a store.JobPass and runs it on both stores through
// store.RunJobPass, so that a store's own implementation (store/pg's one
// round trip) is compared with the other's.
func (d *diff) jobPass(rt *rapid.T) {
	p := store.JobPass{Worker: d.pickWorker(rt), Heartbeat: rapid.Bool().Draw(rt, "heartbeat")}
	for range rapid.IntRange(0, 2).Draw(rt, "completions") {
		p.Complete = append(p.Complete, d.drawCompletion(rt, 2))
	}
	p.Executing = d.drawExecuting(rt)
	p.Queues, p.Limit = d.drawQueues(rt), rapid.IntRange(-1, 4).Draw(rt, "limit")
	what := fmt.Sprintf("job pass %+v", p)
	d.onBoth(what, what, func(st store.Store) (string, error) {
		res, err := store.RunJobPass(d.ctx, st, p)
		return FormatPass(res), err
	})
}
