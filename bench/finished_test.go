package main

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParseLevels(t *testing.T) {
	for in, want := range map[string][]int{
		"":                   nil,
		"0":                  {0},
		"0,1000000,10000000": {0, 1_000_000, 10_000_000},
		"0, 100, 100":        {0, 100, 100},
	} {
		got, err := parseLevels(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseLevels(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "10,5", "1e6", "0,,10", "ten"} {
		if _, err := parseLevels(in); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("parseLevels(%q): error %v, want one that names the input", in, err)
		}
	}
}

func TestParseHistoryFinished(t *testing.T) {
	f, err := parseHistory([]string{"-database-url", "postgres://x", "-finished", "0,100000", "-window", "500", "-jobs", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.finished, []int{0, 100_000}) || f.window != 500 || f.jobs != 0 {
		t.Errorf("parsed -finished %v -window %d -jobs %d", f.finished, f.window, f.jobs)
	}
	if f, _ := parseHistory([]string{"-database-url", "postgres://x"}, io.Discard); f.finished != nil {
		t.Errorf("without -finished: levels %v, want none", f.finished)
	}
	if _, err := parseHistory([]string{"-database-url", "postgres://x", "-finished", "5,1"}, io.Discard); err == nil {
		t.Error("-finished 5,1 accepted")
	}
}

// TestHistoryFinishedTiny runs -finished on a few thousand rows in two
// vacuum modes: a window at every level, each with the rows it asked for
// before it and a ratio to the first level, and no schema left behind.
func TestHistoryFinishedTiny(t *testing.T) {
	text := historyTiny(t, "f", "-jobs", "0", "-sweep", "0", "-finished", "0,1000,5000", "-window", "200", "-vacuum", "off,manual", "-batch", "64")
	levels := regexp.MustCompile(`(?m)^finished +(\d+): +\d+ jobs/s \(x\d+\.\d\d of the first level\)`).FindAllStringSubmatch(text, -1)
	var got []string
	for _, m := range levels {
		got = append(got, m[1])
	}
	if want := []string{"0", "1000", "5000", "0", "1000", "5000"}; !slices.Equal(got, want) {
		t.Errorf("levels measured %v, want %v", got, want)
	}
	if n := strings.Count(text, "  window: 200 jobs in"); n != 6 {
		t.Errorf("%d windows of 200 jobs, want 6", n)
	}
}
