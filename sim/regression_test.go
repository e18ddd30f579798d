package sim

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRegressionSeeds replays every seed of testdata/regression_seeds.txt,
// each a run that once failed, and requires that it now passes.
func TestRegressionSeeds(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "regression_seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		field, why, _ := strings.Cut(line, " ")
		seed, err := strconv.ParseUint(field, 10, 64)
		if err != nil {
			t.Fatalf("regression line %q: want `seed why`", line)
		}
		n++
		if r := Run(Draw(seed, FaultOverrides{}), Options{}); r.Failed() {
			t.Errorf("seed %d (%s): %v %s\n  replay: go run ./cmd/simulate -seed %d -v", seed, why, r.Err, r.Report, seed)
		}
	}
	if err := sc.Err(); err != nil || n == 0 {
		t.Fatalf("read %d seeds: %v", n, err)
	}
}
