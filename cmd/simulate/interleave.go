package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// ilRunner runs seeds with -store pg -interleave: each simulated process on
// a gated store of its own, the simulator releasing their round trips in
// an order drawn from the seed (sim.Interleaver). There is no in-memory
// trace to compare with, since the in-memory store's transactions are
// serial: the run is judged by the properties, checked on the history the
// simulator reads back after every transaction. It owns one throwaway
// schema, emptied per seed.
type ilRunner struct {
	cfg      config
	schema   string
	observer *pg.Store // ungated: reads the rows back, serves the vacuum
	now      atomic.Pointer[func() time.Time]
	admin    *pgx.Conn // ungated: the controller asks the server who waits
}

func newILRunner(cfg config, i int) (*ilRunner, error) {
	r := &ilRunner{cfg: cfg, schema: fmt.Sprintf("tickwork_il_%d_%d", os.Getpid(), i)}
	st, err := openSchema(cfg, r.schema, &r.now, 0)
	if err != nil {
		return nil, fmt.Errorf("-store pg -interleave: %w", err)
	}
	if r.admin, err = pgx.Connect(context.Background(), cfg.databaseURL); err != nil {
		st.Close()
		return nil, fmt.Errorf("-store pg -interleave: the controller's connection: %w", err)
	}
	r.observer = st
	return r, nil
}

func (r *ilRunner) run(seed uint64) outcome {
	sc := r.cfg.scenarioFor(seed)
	o := outcome{seed: seed, result: r.runOnce(sc, sim.Options{})}
	if r.cfg.checkDeterminism && !o.result.Failed() {
		o.rerunHash = r.runOnce(sc, sim.Options{}).TraceHash
	}
	return o
}

// runOnce simulates sc from an empty schema with opt's trace and recorder.
func (r *ilRunner) runOnce(sc sim.Scenario, opt sim.Options) sim.Result {
	if err := r.observer.DeleteAllRows(context.Background()); err != nil {
		return sim.Result{Scenario: sc, Err: fmt.Errorf("-store pg -interleave: empty the schema: %w", err)}
	}
	var gates *pgGates
	opt.Backend = func(now func() time.Time) (sim.Backend, error) {
		r.now.Store(&now)
		return sim.DiffBackend(unvacuumed{r.observer}), nil
	}
	opt.Interleave = func(now func() time.Time, actors []string) (sim.Interleaver, error) {
		var err error
		gates, err = r.gates(sc.Seed, now, actors)
		return gates, err
	}
	res := sim.Run(sc, opt)
	if gates != nil {
		if err := gates.close(); err != nil && res.Err == nil {
			res.Err = err
		}
	}
	return res
}

// unvacuumed is the runner's ungated store as the simulator's backend,
// but for its VacuumJobs, which runs no VACUUM. The simulator calls the
// backend's vacuum at once and waits for it, and a VACUUM on an ungated
// connection waits for the buffer pins of the gated transactions the
// controller holds parked, which only the simulator, waiting, would let
// go: the run hung (found by make mutants-pg with pg-duties-unserialized,
// whose second leader's duties stay open beside the vacuum). What the
// simulator checks of the vacuum duty (the claim, its timing, the record)
// stays; store/pg's VACUUM itself runs in the serial runs and
// store/pg's tests.
type unvacuumed struct{ *pg.Store }

func (unvacuumed) VacuumJobs(context.Context) error { return nil }

func (r *ilRunner) close() {
	if err := r.observer.DropSchema(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
	}
	r.observer.Close()
	_ = r.admin.Close(context.Background())
}

// pgGates is a sim.Interleaver on store/pg/interleave: one controller per
// run, one gated store per actor, all on the runner's schema.
type pgGates struct {
	ctl    *interleave.Controller
	stores map[string]*pg.Store
	seen   int // controller events already reported
}

// settleTimeout bounds one settle in wall time: a round trip the server
// holds on something no actor releases would otherwise hang the run.
const settleTimeout = time.Minute

func (r *ilRunner) gates(seed uint64, now func() time.Time, actors []string) (*pgGates, error) {
	g := &pgGates{stores: map[string]*pg.Store{}}
	g.ctl = interleave.New(r.admin, clockrng.NewRand(seed).Child("interleave"), interleave.Options{Schema: r.schema})
	for _, label := range actors {
		st, err := pg.Open(context.Background(), r.cfg.databaseURL, pg.Options{
			Schema: r.schema, Now: now, Gate: g.ctl.Gate(label), MaxConns: 2,
		})
		if err != nil {
			_ = g.close()
			return nil, fmt.Errorf("the store of %s: %w", label, err)
		}
		g.stores[label] = st
	}
	return g, nil
}

func (g *pgGates) Store(label string) store.Store { return g.stores[label] }

func (g *pgGates) Go(label string, fn func()) { g.ctl.Go(label, fn) }

func (g *pgGates) Reserves(statement string) bool { return pg.IsReservation(statement) }

func (g *pgGates) Settle() (sim.Settled, error) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	pending, err := g.ctl.Settle(ctx)
	if err != nil {
		return sim.Settled{}, err
	}
	var st sim.Settled
	for _, p := range pending {
		st.Pending = append(st.Pending, sim.Trip{Conn: p.Conn, Commit: p.Commits})
	}
	events := g.ctl.EventsSince(g.seen)
	g.seen += len(events)
	for _, e := range events {
		st.Lines = append(st.Lines, e.String())
		switch e.Kind {
		case interleave.Done:
			if e.Tx == "idle" && mayCommit(e) && !slices.Contains(st.Ended, e.Conn) {
				st.Ended = append(st.Ended, e.Conn)
			}
		case interleave.Wait:
			st.Waits = append(st.Waits, props.LockWait{Conn: e.Conn, Statement: e.Waiting, On: e.On})
		case interleave.Cancel:
			st.Deadlocks++
		case interleave.Release:
			st.Overlap = st.Overlap || slices.ContainsFunc(e.Open, func(c string) bool { return label(c) != label(e.Conn) })
		}
	}
	return st, nil
}

func (g *pgGates) Release(conn string, f sim.TripFault) error {
	switch f {
	case sim.TripSever:
		return g.ctl.Sever(conn)
	case sim.TripTerminate:
		ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		defer cancel()
		return g.ctl.Terminate(ctx, conn)
	case sim.TripLoseAnswer:
		return g.ctl.ReleaseLosingAnswer(conn)
	}
	return g.ctl.Release(conn)
}

// Drain closes the connection of every parked round trip until every
// actor has returned: what they would still do is not part of the run.
func (g *pgGates) Drain() error {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	for {
		pending, err := g.ctl.Settle(ctx)
		if err != nil || len(pending) == 0 {
			return err
		}
		for _, p := range pending {
			if err := g.ctl.Sever(p.Conn); err != nil {
				return err
			}
		}
	}
}

// close drains the actors, turns gating off and closes the stores.
func (g *pgGates) close() error {
	err := g.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	err = errors.Join(err, g.ctl.Run(ctx)) // no actor left: only ungates
	for _, st := range g.stores {
		st.Close()
	}
	return err
}

// mayCommit reports whether a round trip that left its connection idle
// may have committed: not one that failed (its transaction, implicit or
// not, rolled back), nor one that only prepared. A batch that waited on
// a lock and then failed (a keeping completion refused) ends in the
// step that committed the holder, and would otherwise seem a second
// commit there.
func mayCommit(e interleave.Event) bool {
	return e.Code == "" && slices.ContainsFunc(e.Statements, func(s string) bool { return !interleave.Prepares(s) })
}

// label is the actor of a connection "label#n".
func label(conn string) string {
	l, _, _ := strings.Cut(conn, "#")
	return l
}
