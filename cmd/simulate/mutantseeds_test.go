package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/sim"
)

func TestReadMutantSeeds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	seeds, err := readMutantSeeds(write("good", "# comment\n\nmax-fetch 1\n  no-rescue   42  -bulk,+crash\n"))
	forced, _ := sim.ParseFaultOverrides("-bulk,+crash")
	if err != nil || len(seeds) != 2 || seeds["max-fetch"] != (recordedSeed{seed: 1}) ||
		seeds["no-rescue"] != (recordedSeed{seed: 42, faults: "-bulk,+crash", overrides: forced}) {
		t.Fatalf("good file: %v, %v", seeds, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"four-fields", "max-fetch 1 -bulk 2\n", `line 1: "max-fetch 1 -bulk 2": want a bug's name, a seed and maybe fault kinds`},
		{"bad-faults", "max-fetch 1 -nosuchkind\n", `line 1: fault kinds "-nosuchkind" of max-fetch`},
		{"bad-seed", "# x\nmax-fetch -3\n", `line 2: seed "-3" of max-fetch`},
		{"missing", "", "no such file"},
	} {
		path := filepath.Join(dir, c.name)
		if c.name != "missing" {
			path = write(c.name, c.text)
		}
		if _, err := readMutantSeeds(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", c.name, err, path, c.want)
		}
	}
	if _, err := parseFlags([]string{"-mutant-seeds", "f"}, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "add -mutants") {
		t.Errorf("-mutant-seeds without -mutants: error %v", err)
	}
}
