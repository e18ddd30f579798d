//go:build mutants

package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/props"
)

// With a planted bug in the workers, the live run's checks catch it: the
// history a live run rebuilds is not too weak to see a broken promise.
// Run with: go test -tags mutants ./cmd/chaos
func TestChaosCatchesPlantedBugs(t *testing.T) {
	long.Test(t, "live chaos runs, one per planted bug")
	for _, tc := range []struct {
		mutant string
		want   props.Property
	}{
		{"no-rescue", props.NoLostJobs},
		{"max-fetch", props.ConcurrencyCap},
		{"retry-at-max", props.RetryBounds},
		{"vacuum-ignores-interval", props.Vacuum},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			o := shortOptions(t)
			o.mutant = tc.mutant
			o.settle = 15 * time.Second // no-rescue never settles
			var out bytes.Buffer
			sum, err := chaos(context.Background(), o, &out)
			if err != nil {
				t.Fatalf("chaos run: %v\n%s", err, out.String())
			}
			if sum.violated[tc.want] == 0 {
				t.Fatalf("planted bug %s: no violation of property %v (found %v)\n%s", tc.mutant, tc.want, sum.violated, out.String())
			}
		})
	}
}
