package main

import (
	"io"
	"testing"
)

// TestThroughputLanesRuleOfThumb pins the lanes a throughput run gives
// tickwork when -lanes is not set: two from 100 jobs in flight (measured
// faster than one there on the shared development machine), one per 500
// from 1,500.
func TestThroughputLanesRuleOfThumb(t *testing.T) {
	for _, c := range []struct{ inflight, lanes int }{
		{1, 1}, {99, 1}, {100, 2}, {1000, 2}, {1499, 2}, {1500, 3}, {5000, 10},
	} {
		if got := throughputLanes(c.inflight); got != c.lanes {
			t.Errorf("throughputLanes(%d) = %d, want %d", c.inflight, got, c.lanes)
		}
	}
}

func TestCompareRefusesNegativeLanes(t *testing.T) {
	if _, err := parseCompare([]string{"-database-url", "postgres://x", "-lanes", "-1"}, io.Discard); err == nil {
		t.Fatal("-lanes -1 was accepted")
	}
	f, err := parseCompare([]string{"-database-url", "postgres://x", "-lanes", "3"}, io.Discard)
	if err != nil || f.lanes != 3 {
		t.Fatalf("-lanes 3: got %d, %v", f.lanes, err)
	}
}
