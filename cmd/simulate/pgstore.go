package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/internal/localpg"
	"github.com/tickwork/tickwork/sim"
	"github.com/tickwork/tickwork/store/pg"
)

// seedRunner simulates seeds one after another on one goroutine.
type seedRunner interface {
	run(seed uint64) outcome
	close()
}

// memRunner runs seeds on the in-memory store.
type memRunner struct{ cfg config }

func (r memRunner) run(seed uint64) outcome { return runOne(r.cfg, seed) }
func (memRunner) close()                    {}

// newRunner returns the runner for goroutine i of cfg.parallel.
func newRunner(cfg config, i int) (seedRunner, error) {
	if cfg.store == "mem" {
		return memRunner{cfg}, nil
	}
	if cfg.interleave {
		return newILRunner(cfg, i)
	}
	return newPGRunner(cfg, i)
}

// pgRunner runs each seed on the in-memory store and then on PostgreSQL,
// whose clock the simulator supplies, and requires byte-identical traces:
// what the simulator proves of the in-memory store then holds for the SQL
// that runs in production. It owns one throwaway schema, emptied per seed.
type pgRunner struct {
	cfg   config
	store *demotable
	now   atomic.Pointer[func() time.Time]
}

// findDatabase fills in cfg.databaseURL when -database-url was not given:
// DATABASE_URL, else the local server when it answers. Either way the
// simulator's sessions commit without waiting for the WAL's flush
// (synchronous_commit=off): no seed crashes the server, so a commit's
// durability changes nothing a seed can see, and the interleaved runs,
// which commit one transaction at a time, wait on the disk far less.
func findDatabase(cfg *config) error {
	if cfg.databaseURL == "" {
		url, err := localpg.Default.Find(context.Background())
		if err != nil {
			return fmt.Errorf("-store pg needs PostgreSQL: %w; pass -database-url or set DATABASE_URL", err)
		}
		cfg.databaseURL = url
	}
	cfg.databaseURL = pg.WithParam(cfg.databaseURL, "synchronous_commit", "off")
	return nil
}

func newPGRunner(cfg config, i int) (*pgRunner, error) {
	r := &pgRunner{cfg: cfg}
	// One connection, so that the one the read-only fault demotes is the
	// one the next transaction gets.
	st, err := openSchema(cfg, fmt.Sprintf("tickwork_sim_%d_%d", os.Getpid(), i), &r.now, 1)
	if err != nil {
		return nil, fmt.Errorf("-store pg: %w", err)
	}
	r.store = &demotable{Store: st}
	return r, nil
}

// openSchema opens an ungated store on a schema of its own, migrated,
// whose clock is the one now holds (the simulator's, set per seed), with
// at most maxConns connections (0: the URL's pool size).
func openSchema(cfg config, schema string, now *atomic.Pointer[func() time.Time], maxConns int32) (*pg.Store, error) {
	ctx := context.Background()
	st, err := pg.Open(ctx, cfg.databaseURL, pg.Options{
		Schema:   schema,
		Now:      func() time.Time { return (*now.Load())() },
		MaxConns: maxConns,
	})
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func (r *pgRunner) run(seed uint64) outcome {
	sc := r.cfg.scenarioFor(seed)
	onPG := func(now func() time.Time) (sim.Backend, error) {
		r.store.fresh()
		if err := r.store.DeleteAllRows(context.Background()); err != nil {
			return nil, err
		}
		r.now.Store(&now)
		return sim.DiffBackend(r.store), nil
	}
	got, diff := sim.RunCompared(sc, onPG)
	o := outcome{seed: seed, result: got}
	if diff != "" {
		o.storeMismatch = "PostgreSQL and in-memory traces differ (in-memory first) at " + diff
	}
	return o
}

func (r *pgRunner) close() {
	r.store.fresh()
	if err := r.store.DropSchema(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
	}
	r.store.Close()
}
