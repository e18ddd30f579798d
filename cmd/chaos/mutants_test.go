//go:build mutants

package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store/pg/pgtest"
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

// shortOptions is a chaos run short enough for go test: three workers
// for 10 s with a 2 s dead threshold, and no PostgreSQL restart, which
// would disturb the other packages' tests sharing the server.
func shortOptions(t *testing.T) options {
	return options{
		databaseURL:  pgtest.URL(t),
		duration:     10 * time.Second,
		workers:      3,
		seed:         1,
		schema:       pgtest.Schema(t),
		keepSchema:   true, // pgtest drops it
		workDir:      t.TempDir(),
		settle:       60 * time.Second,
		concurrency:  4,
		leaseTTL:     time.Second,
		deadAfter:    2 * time.Second,
		heartbeat:    300 * time.Millisecond,
		poll:         200 * time.Millisecond,
		retryDelay:   100 * time.Millisecond,
		maxRetries:   2,
		drainTimeout: 300 * time.Millisecond,
		hookTimeout:  500 * time.Millisecond,
		// Vacuums due every few seconds: property 16 judged on a live run.
		vacuumDeadRows: 20, vacuumInterval: 3 * time.Second,
	}
}
