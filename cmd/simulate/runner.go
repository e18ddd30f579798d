package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/sim"
)

// outcome is what the summary keeps of one seed: counts, never the run.
type outcome struct {
	seed   uint64
	result sim.Result
	// rerunHash is the trace hash of the second run with -check-determinism.
	rerunHash uint64
	// storeMismatch says where the PostgreSQL trace left the in-memory one
	// (-store pg); empty when they agree.
	storeMismatch string
}

// runSeeds simulates seeds from..to on cfg.parallel goroutines, on runners
// of its own. An error means the runners could not be set up (no database
// for -store pg): no seed ran.
func runSeeds(cfg config, from, to uint64) (*summary, error) {
	runners, err := newRunners(cfg)
	if err != nil {
		return nil, err
	}
	defer closeRunners(runners)
	all, _ := runSeedsOn(cfg, runners, from, to, to)
	return all, nil
}

// runSeedsOn simulates seeds from..to on the runners, one goroutine each,
// and sums up the seeds up to through in head and the later ones in tail.
// Every seed up to through runs; a later one is handed out only while no
// lower seed has failed, so tail's lowest failure is the lowest failing
// seed whatever the scheduling. One pass over both keeps every runner busy
// where the head's last seeds would otherwise leave most of them idle.
func runSeedsOn(cfg config, runners []seedRunner, from, through, to uint64) (head, tail *summary) {
	head, tail = newSummary(from), newSummary(through+1)
	start := time.Now()
	var next atomic.Uint64
	next.Store(from)
	var lowestFail atomic.Uint64
	lowestFail.Store(^uint64(0))
	results := make(chan outcome, cfg.parallel)
	var wg sync.WaitGroup
	for _, runner := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed := next.Add(1) - 1
				if seed > to || (seed > through && seed > lowestFail.Load()) {
					return
				}
				o := runner.run(seed)
				if o.failed() {
					for cur := lowestFail.Load(); seed < cur && !lowestFail.CompareAndSwap(cur, seed); cur = lowestFail.Load() {
					}
				}
				results <- o
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	tick := time.NewTicker(cfg.progressEvery)
	defer tick.Stop()
	for {
		select {
		case o, ok := <-results:
			if !ok {
				head.wall, tail.wall = time.Since(start), time.Since(start)
				return head, tail
			}
			switch {
			case o.seed <= through:
				head.add(cfg, o)
			case o.seed <= lowestFail.Load(): // else it ran before a lower failure was known
				tail.add(cfg, o)
			}
		case <-tick.C:
			if cfg.progress != nil {
				fmt.Fprintf(cfg.progress, "simulate: %d of %d seeds done, %d failed, %s\n",
					head.seeds+tail.seeds, to-from+1, head.failed+tail.failed, time.Since(start).Round(time.Second))
			}
		}
	}
}

// newRunners sets up cfg.parallel runners side by side (with -store pg
// each creates and migrates a schema of its own, which one after another
// took seconds), or none if one fails: then the first failure, in the
// runners' order, is returned.
func newRunners(cfg config) ([]seedRunner, error) {
	runners := make([]seedRunner, cfg.parallel)
	errs := make([]error, cfg.parallel)
	var wg sync.WaitGroup
	for i := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runners[i], errs[i] = newRunner(cfg, i)
		}()
	}
	wg.Wait()
	var made []seedRunner
	for i, err := range errs {
		if err == nil {
			made = append(made, runners[i])
		}
	}
	for _, err := range errs {
		if err != nil {
			closeRunners(made)
			return nil, err
		}
	}
	return runners, nil
}

// closeRunners closes the runners side by side (with -store pg each drops
// its schema).
func closeRunners(runners []seedRunner) {
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.close()
		}()
	}
	wg.Wait()
}

// runOne simulates one seed: twice, traced, with -check-determinism, to
// compare the trace hashes; else once without the trace, and once more
// with it when the seed failed, for the report's trace lines and names.
func runOne(cfg config, seed uint64) outcome {
	sc := cfg.scenarioFor(seed)
	if cfg.checkDeterminism {
		o := outcome{seed: seed, result: sim.Run(sc, sim.Options{})}
		o.rerunHash = sim.Run(sc, sim.Options{}).TraceHash
		return o
	}
	o := outcome{seed: seed, result: sim.Run(sc, sim.Options{Quiet: true})}
	if o.result.Failed() {
		o.result = sim.Run(sc, sim.Options{})
	}
	return o
}

func (o *outcome) nondeterministic() bool {
	return o.rerunHash != 0 && o.rerunHash != o.result.TraceHash
}

func (o *outcome) failed() bool {
	return o.result.Failed() || o.nondeterministic() || o.storeMismatch != ""
}
