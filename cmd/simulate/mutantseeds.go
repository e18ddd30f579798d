package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// mutantSeeds maps a planted bug's name to a seed known to catch it
// (-mutant-seeds FILE). The interleaved PostgreSQL run costs seconds a
// seed and some of its bugs need dozens of seeds before one catches them,
// so CI replays the recorded seed and searches only when that seed no
// longer catches its bug (a change of draws moved the catch).
type mutantSeeds map[string]uint64

// readMutantSeeds reads FILE: a "name seed" line per bug; '#' starts a
// comment line.
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
		if len(fields) != 2 {
			return nil, fmt.Errorf("-mutant-seeds %s line %d: %q: want a bug's name and a seed", path, n, line)
		}
		seed, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-mutant-seeds %s line %d: seed %q of %s: want a number of 0 or more", path, n, fields[1], fields[0])
		}
		seeds[fields[0]] = seed
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
