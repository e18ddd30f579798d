package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tickwork/tickwork/sim"
)

// mutantSeeds maps a planted bug's name to a seed known to catch it
// (-mutant-seeds FILE). The interleaved PostgreSQL run costs seconds a
// seed and some of its bugs need dozens of seeds before one catches them,
// so CI replays the recorded seed and searches only when that seed no
// longer catches its bug (a change of draws moved the catch).
type mutantSeeds map[string]recordedSeed

// recordedSeed is a seed that catches a bug, with the fault kinds forced
// on or off for it (a -faults value, "" for none): a rare catch found
// before a new kind was drawn keeps its scenario by turning the kind off.
type recordedSeed struct {
	seed      uint64
	faults    string
	overrides sim.FaultOverrides // faults, parsed
}

// readMutantSeeds reads FILE: a "name seed [faults]" line per bug; '#'
// starts a comment line.
func readMutantSeeds(path string) (mutantSeeds, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-mutant-seeds: %w", err)
	}
	defer f.Close()
	seeds := mutantSeeds{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 && len(fields) != 3 {
			return nil, fmt.Errorf("-mutant-seeds %s line %d: %q: want a bug's name, a seed and maybe fault kinds", path, n, line)
		}
		seed, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-mutant-seeds %s line %d: seed %q of %s: want a number of 0 or more", path, n, fields[1], fields[0])
		}
		rec := recordedSeed{seed: seed}
		if len(fields) == 3 {
			if rec.overrides, err = sim.ParseFaultOverrides(fields[2]); err != nil {
				return nil, fmt.Errorf("-mutant-seeds %s line %d: fault kinds %q of %s: %w", path, n, fields[2], fields[0], err)
			}
			rec.faults = fields[2]
		}
		seeds[fields[0]] = rec
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("-mutant-seeds %s: %w", path, err)
	}
	return seeds, nil
}

// printStale tells how to bring the file at path up to date: found holds
// a line for each bug whose recorded seed was missing or no longer caught
// it, with the seed the search found.
func printStale(w io.Writer, path string, found []string) {
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(w, "simulate: %s is out of date: a search was needed for %d bug(s); put these lines in it:\n", path, len(found))
	for _, line := range found {
		fmt.Fprintln(w, "  "+line)
	}
}
