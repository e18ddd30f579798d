package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/tickwork/tickwork/internal/localpg"
	"github.com/tickwork/tickwork/sim"
)

// Bounds of what one run may ask for. A run's cost grows with its virtual
// length and its workers: an hour of chaos takes a tenth of a second and
// about 30 MB, so ten thousand seeds of it still fit a laptop, while a
// thousand hours would take minutes and gigabytes per seed.
const (
	maxWorkers   = 100
	maxDuration  = time.Hour // -duration, and chaos and quiescence of a -scenario
	maxJobs      = 10_000    // jobs and burst size of a -scenario
	maxParallel  = 256
	usageRanges  = "-workers 0..100 (0: drawn), -duration 0..1h (0: drawn), -parallel 1..256, -seeds at least 1"
	progressTick = 5 * time.Second
)

func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := config{progressEvery: progressTick}
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: simulate [flags]\n\n%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.seeds, "seeds", 1000, "how many seeds to run (progress goes to stderr every few seconds)")
	fs.IntVar(&cfg.from, "from", 1, "first seed of -seeds")
	fs.Uint64Var(&cfg.seed, "seed", 0, "replay this one seed (0 or more)")
	fs.BoolVar(&cfg.verbose, "v", false, "print the full trace (only with -seed or -scenario)")
	fs.BoolVar(&cfg.printScenario, "print-scenario", false, "with -seed: print the scenario's JSON, which -scenario replays, and run nothing")
	fs.IntVar(&cfg.workers, "workers", 0, fmt.Sprintf("number of worker processes, at most %d (0: drawn from the seed)", maxWorkers))
	fs.DurationVar(&cfg.duration, "duration", 0, fmt.Sprintf("length of the chaos phase in virtual time, at most %v (0: drawn from the seed)", maxDuration))
	fs.StringVar(&cfg.faults, "faults", "", "force fault kinds on or off, e.g. -crash,+stall (-all, +all)")
	fs.IntVar(&cfg.parallel, "parallel", runtime.NumCPU(), fmt.Sprintf("seeds simulated at once, at most %d", maxParallel))
	fs.BoolVar(&cfg.checkDeterminism, "check-determinism", false, "run every seed twice and compare trace hashes")
	fs.StringVar(&cfg.mutant, "mutant", "", "plant this bug (binary built with -tags mutants)")
	fs.BoolVar(&cfg.mutants, "mutants", false, "plant each bug in turn; report the seeds until it is caught")
	fs.StringVar(&cfg.mutantSeeds, "mutant-seeds", "", "with -mutants: a file of \"bug seed\" lines; each bug's seed runs first, and the seeds are searched only when it no longer catches the bug")
	fs.StringVar(&cfg.html, "html", "", "with -seed or -scenario: write a picture of the run to this HTML file")
	fs.StringVar(&cfg.scenario, "scenario", "", "replay this scenario JSON (from -print-scenario or a failure report) instead of drawing one from a seed")
	fs.StringVar(&cfg.store, "store", "mem", "store to simulate: mem, or pg (each seed of -seeds also runs on mem; the traces must be identical)")
	fs.BoolVar(&cfg.interleave, "interleave", false, "with -store pg: run each worker process on its own connections and overlap their transactions, round trip by round trip in an order drawn from the seed (no in-memory comparison; -seed N -v replays one)")
	fs.StringVar(&cfg.databaseURL, "database-url", "", "PostgreSQL for -store pg (default $DATABASE_URL, else "+localpg.DefaultURL+" when it answers)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg.seedSet = set["seed"]
	if err := cfg.check(set); err != nil {
		return cfg, err
	}
	ov, err := sim.ParseFaultOverrides(cfg.faults)
	if err != nil {
		return cfg, err
	}
	cfg.overrides = ov
	if pooledRun(cfg) {
		cfg.overrides = ov.Pooled()
	}
	return cfg, nil
}

const synopsis = `Runs tickwork's deterministic simulator: many workers on one store through
crashes, stalls, clock drift and store faults, drawn from a seed, with the
queue's promises checked after every step. Exits 1 on a violation, printing
the command that replays it, and 2 on a usage error.

  simulate -seeds 10000                 seeds 1..10000 on all cores
  simulate -seed 42 -v                  replay one seed with its full trace
  simulate -seed 42 -print-scenario     the JSON that -scenario replays
  simulate -scenario '{...}' -v         replay a scenario, edited or not
  simulate -seed 42 -html s.html        draw the run as one HTML page
  simulate -store pg -seeds 50          also run each seed on PostgreSQL
  simulate -store pg -interleave -seeds 300
                                        overlap the workers' transactions on PostgreSQL
  simulate -store pg -interleave -seed 7 -v
                                        replay one, each round trip in the trace

Ranges: ` + usageRanges + `.`

// check refuses combinations that cannot work or would silently ignore a
// flag; set holds the flags given.
func (cfg config) check(set map[string]bool) error {
	oneRun := cfg.seedSet || cfg.scenario != ""
	var errs []error
	if cfg.store != "mem" && cfg.store != "pg" {
		errs = append(errs, fmt.Errorf("-store %q: want mem or pg", cfg.store))
	}
	for _, r := range []struct {
		bad  bool
		flag string
		want string
	}{
		{cfg.seeds < 1, fmt.Sprintf("-seeds %d", cfg.seeds), "at least 1"},
		{cfg.from < 0, fmt.Sprintf("-from %d", cfg.from), "0 or more"},
		{cfg.seeds > 0 && cfg.from > math.MaxInt-cfg.seeds, fmt.Sprintf("-from %d with -seeds %d", cfg.from, cfg.seeds), "a last seed below 2^63"},
		{cfg.parallel < 1 || cfg.parallel > maxParallel, fmt.Sprintf("-parallel %d", cfg.parallel), fmt.Sprintf("1 to %d", maxParallel)},
		{cfg.workers < 0 || cfg.workers > maxWorkers, fmt.Sprintf("-workers %d", cfg.workers), fmt.Sprintf("0 (drawn) to %d", maxWorkers)},
		{cfg.duration < 0 || cfg.duration > maxDuration, "-duration " + cfg.duration.String(), "0 (drawn) to " + maxDuration.String()},
	} {
		if r.bad {
			errs = append(errs, fmt.Errorf("%s is out of range: want %s", r.flag, r.want))
		}
	}
	if cfg.mutantSeeds != "" && !cfg.mutants {
		errs = append(errs, errors.New("-mutant-seeds gives each planted bug of -mutants a seed to try first: add -mutants"))
	}
	if cfg.interleave && cfg.store != "pg" {
		errs = append(errs, errors.New("-interleave overlaps transactions on PostgreSQL: add -store pg"))
	}
	if (cfg.verbose || cfg.printScenario) && !oneRun {
		errs = append(errs, errors.New("-v and -print-scenario are about one run: use them with -seed N or -scenario (a -seeds run prints each failing seed's replay command)"))
	}
	if cfg.html != "" && !oneRun {
		errs = append(errs, fmt.Errorf("-html %s draws one run: use it with -seed N or -scenario", cfg.html))
	}
	if cfg.printScenario && (cfg.scenario != "" || cfg.verbose) {
		errs = append(errs, errors.New("-print-scenario prints the scenario of -seed without running it: drop -scenario and -v"))
	}
	if cfg.seedSet && cfg.scenario != "" {
		errs = append(errs, errors.New("-seed and -scenario both choose the run: give one"))
	}
	if cfg.scenario != "" && (set["workers"] || set["duration"] || set["faults"]) {
		errs = append(errs, errors.New("-workers, -duration and -faults change drawn scenarios: edit the -scenario JSON instead"))
	}
	if oneRun {
		for _, name := range []string{"seeds", "from", "parallel", "check-determinism", "mutants"} {
			if set[name] {
				errs = append(errs, fmt.Errorf("-%s is for runs of many seeds, not with -seed or -scenario", name))
			}
		}
		if cfg.store == "pg" && !cfg.interleave {
			errs = append(errs, errors.New("-store pg compares whole runs of -seeds; replay a seed with -seed N -v (the in-memory trace, which PostgreSQL's must equal), or add -interleave"))
		}
	}
	return errors.Join(errs...)
}

// checkScenario refuses a -scenario beyond the bounds -workers and
// -duration have.
func checkScenario(sc sim.Scenario) error {
	if sc.Workers > maxWorkers || sc.Chaos.D() > maxDuration || sc.Quiescence.D() > maxDuration || sc.Jobs > maxJobs || sc.BurstSize > maxJobs {
		return fmt.Errorf("scenario seed %d: workers %d, chaos %v, quiescence %v, jobs %d, burst_size %d: allowed at most %d workers, %v each of chaos and quiescence, %d jobs and burst size",
			sc.Seed, sc.Workers, sc.Chaos, sc.Quiescence, sc.Jobs, sc.BurstSize, maxWorkers, maxDuration, maxJobs)
	}
	return nil
}
