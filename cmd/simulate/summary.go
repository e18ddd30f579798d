package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tickwork/tickwork/sim"
)

// summary adds up the seeds of one invocation.
type summary struct {
	from          uint64
	seeds, failed int
	events        int64
	virtual       time.Duration
	wall          time.Duration
	faults        [len(sim.Result{}.Faults)]int64
	faultSeeds    [len(sim.Result{}.Faults)]int
	marks         []int
	settled       int
	failures      []outcome // kept in full only for the lowest seeds
}

// keptFailures is how many failing seeds are reported in detail.
const keptFailures = 3

func newSummary(from uint64) *summary {
	return &summary{from: from, marks: make([]int, len(sim.AllMarks()))}
}

func (s *summary) add(cfg config, o outcome) {
	r := &o.result
	s.seeds++
	s.events += int64(r.Events)
	s.virtual += r.Virtual
	for k, n := range r.Faults {
		s.faults[k] += int64(n)
		if n > 0 {
			s.faultSeeds[k]++
		}
	}
	for _, m := range sim.AllMarks() {
		if r.Marks.Has(m) {
			s.marks[m]++
		}
	}
	if r.Settled {
		s.settled++
	}
	if !o.failed() {
		return
	}
	s.failed++
	s.failures = append(s.failures, o)
	slices.SortFunc(s.failures, func(a, b outcome) int { return cmp.Compare(a.seed, b.seed) })
	if len(s.failures) > keptFailures {
		s.failures = s.failures[:keptFailures]
	}
}

// lowestFailure returns the lowest failing seed, if any.
func (s *summary) lowestFailure() (outcome, bool) {
	if len(s.failures) == 0 {
		return outcome{}, false
	}
	return s.failures[0], true
}

// print writes the summary and returns the coverage marks no seed reached.
func (s *summary) print(w io.Writer, cfg config) (gaps []string) {
	for i := range s.failures {
		printFailure(w, cfg, &s.failures[i].result, true)
		if o := s.failures[i]; o.nondeterministic() {
			fmt.Fprintf(w, "seed %d is NOT deterministic: trace hash %016x, then %016x\n", o.seed, o.result.TraceHash, o.rerunHash)
		}
		if o := s.failures[i]; o.storeMismatch != "" {
			fmt.Fprintf(w, "seed %d: %s\n", o.seed, o.storeMismatch)
		}
	}
	secs := s.wall.Seconds()
	fmt.Fprintf(w, "seeds %d (from %d), failed %d, settled early %d, in %.1fs: %.0f seeds/s, virtual %.0fs per wall second, %d events (%.0f/s)\n",
		s.seeds, s.from, s.failed, s.settled, secs, float64(s.seeds)/secs, s.virtual.Seconds()/secs, s.events, float64(s.events)/secs)
	fmt.Fprintln(w, "faults injected (total, seeds):")
	for _, k := range sim.FaultKinds() {
		if k.Pooled() && !pooledRun(cfg) {
			continue // a kind this run cannot draw
		}
		fmt.Fprintf(w, "  %-14s %8d %6d\n", k, s.faults[k], s.faultSeeds[k])
	}
	fmt.Fprintln(w, "coverage (seeds that reached each rare state):")
	for _, m := range sim.AllMarks() {
		if m.Interleaved() && !cfg.interleave || m.Pooled() && !pooledRun(cfg) || m.OwnPass() && cfg.store != "pg" {
			continue // out of reach of serial transactions, of the pool, or of a store without a job pass
		}
		fmt.Fprintf(w, "  %-46s %6d\n", m, s.marks[m])
		// An interleaved run is expected to reach the marks of
		// interleaving, and of the store's own job pass; the others need
		// the in-memory run's many seeds.
		if s.marks[m] == 0 && (m.Interleaved() == cfg.interleave || m.OwnPass()) {
			gaps = append(gaps, m.String())
		}
	}
	if len(gaps) > 0 {
		fmt.Fprintf(w, "GAP: no seed reached: %s\n", strings.Join(gaps, "; "))
	}
	return gaps
}

// printFailure reports one failing seed: property, rows, the trace lines
// that led to it and the command that replays it.
func printFailure(w io.Writer, cfg config, r *sim.Result, withTail bool) {
	sc := r.Scenario
	fmt.Fprintf(w, "FAIL seed %d\n", sc.Seed)
	if r.Err != nil {
		fmt.Fprintf(w, "  run error: %v\n", r.Err)
	}
	if r.Violation != nil {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(r.Report, "\n", "\n  "))
	}
	if withTail && len(r.Tail) > 0 {
		fmt.Fprintf(w, "  last %d trace lines:\n", len(r.Tail))
		for _, l := range r.Tail {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	// A pooled run's read-only faults are drawn only there: its scenario
	// replays them on the in-memory store, whose trace PostgreSQL's equals.
	if cfg.scenario != "" || pooledRun(cfg) && sc.On(sim.ReadOnly) {
		fmt.Fprintf(w, "  replay: %s -v -scenario '%s'\n", cfg.replayPrefix(), sc.JSON())
	} else {
		fmt.Fprintf(w, "  replay: %s\n", cfg.replayCommand(sc.Seed))
	}
}
