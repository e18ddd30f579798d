// Command simulate runs tickwork's deterministic simulator over many seeds
// and checks the queue's promises (props, docs/DESIGN.md) on each run.
//
//	simulate -seeds 10000             seeds 1..10000 on all cores
//	simulate -seed 42 -v              replay one seed with its full trace
//	simulate -seed 42 -print-scenario print the JSON that -scenario replays
//	simulate -scenario '{...}' -v     replay a scenario (printed, or edited)
//	simulate -seed 42 -html seed42.html
//	                                  draw the run as one HTML page
//	simulate -check-determinism       run every seed twice, compare traces
//	go run -tags mutants ./cmd/simulate -mutants
//	                                  show each planted bug is caught
//
// On a violation it prints the seed, the property, the rows involved, the
// last trace lines and the command that replays it, and exits with status 1;
// a usage error (a flag out of range, -store pg without a reachable
// database) exits with status 2. Runs of many seeds report their progress
// on stderr every few seconds.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/sim"
)

// config is what the flags ask for.
type config struct {
	seeds, from      int
	seed             uint64
	seedSet          bool // -seed was given
	verbose          bool
	printScenario    bool
	workers          int
	duration         time.Duration
	faults           string
	overrides        sim.FaultOverrides
	parallel         int
	checkDeterminism bool
	mutant           string
	mutants          bool
	mutantSeeds      string   // with -mutants: a seed per bug to try before searching
	onlyMutants      []string // tests: -mutants plants only these (nil: all)
	scenario         string
	store            string // mem, or pg: run on both and compare traces
	interleave       bool   // with -store pg: each process on its own gated store, transactions overlapping
	databaseURL      string
	progressEvery    time.Duration // between progress lines on stderr
	progress         io.Writer     // stderr
	html             string        // with -seed or -scenario: write the picture of the run here
}

// marksExpectedFrom is the run length from which every coverage mark must
// be reached: a mark no seed reaches means the simulator stopped exercising
// that path, which must fail the run rather than pass silently.
const marksExpectedFrom = 1000

// interleavedMarksFrom is the run length of -interleave from which every
// mark of interleaving must be reached: CI's interleaved run is that long.
const interleavedMarksFrom = 200

// marksMissed reports whether a run of seeds that left gaps fails: from
// marksExpectedFrom seeds on (interleavedMarksFrom with -interleave, whose
// gaps are among the marks of interleaving only), unless faults were
// forced on or off (which may put a mark out of reach).
func marksMissed(cfg config, seeds int, gaps []string) bool {
	return len(gaps) > 0 && seeds >= expectedFrom(cfg) && cfg.faults == ""
}

func expectedFrom(cfg config) int {
	if cfg.interleave {
		return interleavedMarksFrom
	}
	return marksExpectedFrom
}

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sim.GCPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "simulate:", err)
		return 2
	}
	cfg.progress = stderr
	if cfg.store == "pg" {
		if err := findDatabase(&cfg); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return 2
		}
	}
	if cfg.mutants {
		return runMutants(cfg, stdout)
	}
	if err := mutant.Select(cfg.mutant); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return 2
	}
	if cfg.printScenario {
		sc := cfg.scenarioFor(cfg.seed)
		fmt.Fprintln(stdout, sc.JSON())
		return 0
	}
	if cfg.scenario != "" || cfg.seedSet {
		return replay(cfg, stdout, stderr)
	}
	sum, err := runSeeds(cfg, uint64(cfg.from), uint64(cfg.from+cfg.seeds-1))
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return 2
	}
	gaps := sum.print(stdout, cfg)
	if sum.failed > 0 {
		return 1
	}
	if marksMissed(cfg, sum.seeds, gaps) {
		fmt.Fprintf(stdout, "FAIL: in %d seeds no seed reached %d coverage marks (GAP above); every mark is expected from %d seeds on\n", sum.seeds, len(gaps), expectedFrom(cfg))
		return 1
	}
	return 0
}

// scenario returns the scenario of seed with the flags' overrides.
func (cfg config) scenarioFor(seed uint64) sim.Scenario {
	sc := sim.Draw(seed, cfg.overrides)
	if cfg.workers > 0 {
		sc.Workers = cfg.workers
	}
	if cfg.duration > 0 {
		sc.Chaos = sim.Dur(cfg.duration)
	}
	return sc
}

// replayPrefix is the command that runs the simulator with the same bug
// planted, if any.
func (cfg config) replayPrefix() string {
	if cfg.mutant != "" {
		return "go run -tags mutants ./cmd/simulate -mutant " + cfg.mutant
	}
	return "go run ./cmd/simulate"
}

// replayCommand is the command line that reruns seed with the same flags.
func (cfg config) replayCommand(seed uint64) string {
	cmd := cfg.replayPrefix() + fmt.Sprintf(" -seed %d -v", seed)
	if cfg.interleave {
		cmd += " -store pg -interleave"
	}
	if cfg.workers > 0 {
		cmd += fmt.Sprintf(" -workers %d", cfg.workers)
	}
	if cfg.duration > 0 {
		cmd += " -duration " + cfg.duration.String()
	}
	if f := cfg.overrides.String(); f != "" {
		cmd += " -faults=" + f
	}
	return cmd
}

// runReplay runs the one seed or scenario of a replay, interleaved on
// PostgreSQL with -interleave.
func runReplay(cfg config, sc sim.Scenario, opt sim.Options) (sim.Result, error) {
	if !cfg.interleave {
		return sim.Run(sc, opt), nil
	}
	r, err := newILRunner(cfg, 0)
	if err != nil {
		return sim.Result{}, err
	}
	defer r.close()
	return r.runOnce(sc, opt), nil
}

// replay runs one seed or scenario, printing the trace with -v.
func replay(cfg config, stdout, stderr io.Writer) int {
	var sc sim.Scenario
	if cfg.scenario != "" {
		var err error
		if sc, err = sim.ParseScenario(cfg.scenario); err == nil {
			err = checkScenario(sc)
		}
		if err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return 2
		}
	} else {
		sc = cfg.scenarioFor(cfg.seed)
	}
	opt := sim.Options{}
	if cfg.verbose {
		opt.Trace = stdout
	}
	var pic pictureRecorder
	if cfg.html != "" {
		pic.attach(&opt)
	}
	r, err := runReplay(cfg, sc, opt)
	if err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return 2
	}
	if cfg.html != "" {
		if err := pic.write(cfg.html, cfg, sc, &r); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "picture of seed %d written to %s\n", sc.Seed, cfg.html)
	}
	fmt.Fprintf(stdout, "seed %d: %d events, %d trace lines, virtual %v, settled %v, trace hash %016x\n",
		sc.Seed, r.Events, r.Lines, r.Virtual, r.Settled, r.TraceHash)
	if r.Failed() {
		printFailure(stdout, cfg, &r, !cfg.verbose)
		return 1
	}
	return 0
}
