package main

import (
	"slices"
	"strings"
	"testing"
)

// TestRoundRatioPairsRounds: the median of the rounds' ratios pairs each
// tickwork run with the River run of its round, which the ratio of the
// medians does not.
func TestRoundRatioPairsRounds(t *testing.T) {
	var r results
	const fig = "throughput"
	// Round 2 ran in a slow spell for both systems; round 3 was River's best.
	for _, v := range [][2]float64{{46, 20}, {31, 14}, {40, 22}} {
		r.add(fig, "tickwork", v[0])
		r.add(fig, "River", v[1])
	}
	got, ok := r.roundRatio(fig, "River")
	if want := 31.0 / 14; !ok || got != want {
		t.Fatalf("roundRatio = %v, %v; want %v, the median of 46/20, 31/14 and 40/22", got, ok, want)
	}
	tw, _ := r.median(fig, "tickwork")
	rv, _ := r.median(fig, "River")
	if tw/rv != 2.0 {
		t.Fatalf("ratio of medians %v, want 40/20", tw/rv)
	}
	r.add("tickwork only", "tickwork", 1)
	if _, ok := r.roundRatio("tickwork only", "River"); ok {
		t.Error("a figure River did not run has a round ratio")
	}
	var out strings.Builder
	r.print(&out)
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == fig && !slices.Equal(f[len(f)-2:], []string{"2.00x", "2.21x"}) {
			t.Errorf("the throughput row does not end with both ratios: %q", line)
		}
	}
	r.add(fig, "graphile", 10)
	out.Reset()
	r.print(&out)
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == fig && !slices.Equal(f[len(f)-4:], []string{"2.00x", "2.21x", "4.00x", "-"}) {
			t.Errorf("the throughput row does not end with the ratios against River, then graphile's: %q", line)
		}
	}
}
