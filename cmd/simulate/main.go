// Command simulate runs tickwork's deterministic simulator over many seeds
// and checks the queue's promises (SPEC 10) on each run.
//
//	simulate -seeds 10000             seeds 1..10000 on all cores
//	simulate -seed 42 -v              replay one seed with its full trace
//	simulate -scenario '{...}' -v     replay a scenario printed by a test
//	simulate -seed 42 -html seed42.html
//	                                  draw the run as one HTML page
//	simulate -check-determinism       run every seed twice, compare traces
//	go run -tags mutants ./cmd/simulate -mutants
//	                                  show each planted bug is caught
//
// On a violation it prints the seed, the property, the rows involved, the
// last trace lines and the command that replays it, and exits with status 1.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/sim"
)

// config is what the flags ask for.
type config struct {
	seeds, from      int
	seed             int64 // -1: not given
	verbose          bool
	workers          int
	duration         time.Duration
	faults           string
	overrides        sim.FaultOverrides
	parallel         int
	checkDeterminism bool
	mutant           string
	mutants          bool
	scenario         string
	store            string // mem, or pg: run on both and compare traces
	databaseURL      string
	html             string // with -seed or -scenario: write the picture of the run here
}

func main() {
	if os.Getenv("GOGC") == "" {
		// Each run allocates a few hundred kilobytes and keeps none of it;
		// collecting less often saves a third of the CPU for a few more MB.
		debug.SetGCPercent(400)
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
	if cfg.mutants {
		return runMutants(cfg, stdout)
	}
	if err := mutant.Select(cfg.mutant); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return 2
	}
	if cfg.scenario != "" || cfg.seed >= 0 {
		return replay(cfg, stdout, stderr)
	}
	sum := runSeeds(cfg, uint64(cfg.from), uint64(cfg.from+cfg.seeds-1), false)
	sum.print(stdout, cfg)
	if sum.failed > 0 {
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.seeds, "seeds", 1000, "how many seeds to run")
	fs.IntVar(&cfg.from, "from", 1, "first seed of -seeds")
	fs.Int64Var(&cfg.seed, "seed", -1, "replay this one seed")
	fs.BoolVar(&cfg.verbose, "v", false, "print the full trace (with -seed or -scenario)")
	fs.IntVar(&cfg.workers, "workers", 0, "number of worker processes (0: drawn from the seed)")
	fs.DurationVar(&cfg.duration, "duration", 0, "length of the chaos phase in virtual time (0: drawn from the seed)")
	fs.StringVar(&cfg.faults, "faults", "", "force fault kinds on or off, e.g. -crash,+stall (-all, +all)")
	fs.IntVar(&cfg.parallel, "parallel", runtime.NumCPU(), "seeds simulated at once")
	fs.BoolVar(&cfg.checkDeterminism, "check-determinism", false, "run every seed twice and compare trace hashes")
	fs.StringVar(&cfg.mutant, "mutant", "", "plant this bug (binary built with -tags mutants)")
	fs.BoolVar(&cfg.mutants, "mutants", false, "plant each bug in turn; report the seeds until it is caught")
	fs.StringVar(&cfg.scenario, "scenario", "", "replay this scenario JSON instead of drawing one from a seed")
	fs.StringVar(&cfg.store, "store", "mem", "store to simulate: mem, or pg (each seed also runs on mem; the traces must be identical)")
	fs.StringVar(&cfg.html, "html", "", "with -seed or -scenario: write a picture of the run to this HTML file")
	fs.StringVar(&cfg.databaseURL, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL for -store pg (default $DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.store != "mem" && cfg.store != "pg" {
		return cfg, fmt.Errorf("-store %q: want mem or pg", cfg.store)
	}
	if cfg.html != "" && cfg.seed < 0 && cfg.scenario == "" {
		return cfg, fmt.Errorf("-html %s needs -seed or -scenario", cfg.html)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.seeds < 1 || cfg.from < 0 || cfg.parallel < 1 || cfg.workers < 0 || cfg.duration < 0 {
		return cfg, fmt.Errorf("-seeds %d and -parallel %d must be at least 1; -from %d, -workers %d and -duration %v must not be negative",
			cfg.seeds, cfg.parallel, cfg.from, cfg.workers, cfg.duration)
	}
	ov, err := sim.ParseFaultOverrides(cfg.faults)
	if err != nil {
		return cfg, err
	}
	cfg.overrides = ov
	return cfg, nil
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

// replay runs one seed or scenario, printing the trace with -v.
func replay(cfg config, stdout, stderr io.Writer) int {
	var sc sim.Scenario
	if cfg.scenario != "" {
		var err error
		if sc, err = sim.ParseScenario(cfg.scenario); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return 2
		}
	} else {
		sc = cfg.scenarioFor(uint64(cfg.seed))
	}
	opt := sim.Options{}
	if cfg.verbose {
		opt.Trace = stdout
	}
	var pic pictureRecorder
	if cfg.html != "" {
		pic.attach(&opt)
	}
	r := sim.Run(sc, opt)
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
