package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tickwork/tickwork/internal/mutant"
)

// sampleSeeds is how many seeds the kill-rate column runs per bug; an
// interleaved seed costs a hundred times an in-memory one.
const (
	sampleSeeds            = 200
	interleavedSampleSeeds = 10
)

// mutantsFor returns the planted bugs a run of cfg can catch (see
// plantedIn).
func mutantsFor(cfg config) []string {
	var names []string
	for _, name := range mutant.Names {
		if plantedIn(cfg, name) && (cfg.onlyMutants == nil || slices.Contains(cfg.onlyMutants, name)) {
			names = append(names, name)
		}
	}
	return names
}

// plantedIn reports whether a run of cfg plants name: store/pg's bugs of
// its SQL need transactions in flight together (-store pg -interleave),
// those of its pool the serial run on PostgreSQL, whose pool the simulator
// reaches (-store pg), and only those are planted there; the others are
// planted in the in-memory run.
func plantedIn(cfg config, name string) bool {
	switch {
	case mutant.PGSerial(name):
		return pooledRun(cfg)
	case mutant.PG(name):
		return cfg.interleave
	}
	return cfg.store == "mem"
}

// nameWidth is the width of the table's first column: the longest name.
var nameWidth = func() int {
	n := len("mutant")
	for _, name := range mutant.Names {
		n = max(n, len(name))
	}
	return n
}()

// runMutants plants each bug in turn and runs seeds from -from until the
// first one that catches it, at most -seeds of them, then reports how many
// of the first sampleSeeds seeds catch it. It fails if any bug survives.
// With -store pg -interleave it plants the bugs of store/pg's SQL, and
// otherwise the others (see mutantsFor).
func runMutants(cfg config, w io.Writer) int {
	if !mutant.Enabled {
		fmt.Fprintln(w, "simulate: -mutants needs a binary built with -tags mutants:")
		fmt.Fprintln(w, "  go run -tags mutants ./cmd/simulate -mutants")
		return 2
	}
	defer mutant.Select("")
	from, to := uint64(cfg.from), uint64(cfg.from+cfg.seeds-1)
	fmt.Fprintf(w, "%-*s %10s %8s %12s  %s\n", nameWidth, "mutant", "caught at", "seeds", "kill rate", "first property broken")
	status := 0
	sample := uint64(sampleSeeds)
	if cfg.interleave {
		sample = interleavedSampleSeeds
	}
	recorded := mutantSeeds{}
	if cfg.mutantSeeds != "" {
		var err error
		if recorded, err = readMutantSeeds(cfg.mutantSeeds); err != nil {
			fmt.Fprintln(w, "simulate:", err)
			return 2
		}
	}
	var stale []string
	for _, name := range mutantsFor(cfg) {
		if err := mutant.Select(name); err != nil {
			fmt.Fprintln(w, "simulate:", err)
			return 2
		}
		if rec, ok := recorded[name]; ok {
			o, err := catchAt(withFaults(cfg, rec), rec.seed)
			if err != nil {
				fmt.Fprintln(w, "simulate:", err)
				return 2
			}
			if o != nil {
				fmt.Fprintf(w, "%-*s %10d %8d %12s  %s\n", nameWidth, name, o.seed, 1, "recorded", brokenBy(o))
				continue
			}
			fmt.Fprintf(w, "simulate: %s's recorded seed %d no longer catches it; searching from seed %d\n", name, rec.seed, from)
		}
		o, kills, err := catch(cfg, from, to, sample)
		if err != nil {
			fmt.Fprintln(w, "simulate:", err)
			return 2
		}
		if o == nil {
			fmt.Fprintf(w, "%-*s %10s %8d %12s  SURVIVED %d seeds\n", nameWidth, name, "-", to-from+1, "0", to-from+1)
			status = 1
			continue
		}
		if cfg.mutantSeeds != "" {
			stale = append(stale, fmt.Sprintf("%s %d", name, o.seed))
		}
		rate := fmt.Sprintf("%d/%d", kills.failed, kills.seeds)
		fmt.Fprintf(w, "%-*s %10d %8d %12s  %s\n", nameWidth, name, o.seed, o.seed-from+1, rate, brokenBy(o))
	}
	printStale(w, cfg.mutantSeeds, stale)
	return status
}

// brokenBy says how a caught seed failed, for the table's last column.
func brokenBy(o *outcome) string {
	if r := o.result; r.Violation != nil {
		return r.Violation.Property.String()
	} else if r.Err != nil {
		return "run error: " + firstWords(r.Err.Error(), 90)
	}
	return "nondeterministic trace"
}

// withFaults is cfg with the fault kinds rec forces, if any.
func withFaults(cfg config, rec recordedSeed) config {
	if rec.faults != "" {
		cfg.faults, cfg.overrides = rec.faults, rec.overrides
	}
	return cfg
}

// catchAt runs seed alone on one runner: its outcome if it catches the
// selected bug, else nil.
func catchAt(cfg config, seed uint64) (*outcome, error) {
	cfg.parallel = 1
	o, _, err := catch(cfg, seed, seed, 1)
	return o, err
}

// catch runs the first sample seeds of from..to, all of them, for the kill
// rate; if none of them fails it goes on from there to the first seed that
// does, in the same pass (runSeedsOn), so no seed runs twice and no runner
// waits for the sample's last seeds. o is the lowest failing seed's
// outcome, nil if the bug survived every seed. The runners are built
// after the bug is selected (a store builds its statements when it opens),
// so they are never shared between bugs.
func catch(cfg config, from, to, sample uint64) (o *outcome, kills *summary, err error) {
	runners, err := newRunners(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer closeRunners(runners)
	kills, rest := runSeedsOn(cfg, runners, from, min(to, from+sample-1), to)
	if first, ok := kills.lowestFailure(); ok {
		return &first, kills, nil
	}
	if first, ok := rest.lowestFailure(); ok {
		return &first, kills, nil
	}
	return nil, kills, nil
}

// firstWords shortens a message to at most n bytes for the table, cutting
// at a space; the replay prints it whole.
func firstWords(msg string, n int) string {
	if len(msg) <= n {
		return msg
	}
	if i := strings.LastIndexByte(msg[:n], ' '); i > 0 {
		n = i
	}
	return msg[:n] + " ..."
}
