package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

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

// A short live run with every fault kind but the PostgreSQL restart
// finds no violation, and really injected its faults and ran jobs.
func TestShortChaosRun(t *testing.T) {
	long.Test(t, "a live chaos run of worker processes in real time")
	o := shortOptions(t)
	var out bytes.Buffer
	sum, err := chaos(context.Background(), o, &out)
	if err != nil {
		t.Fatalf("chaos run: %v\n%s", err, out.String())
	}
	if sum.found != 0 {
		t.Fatalf("%d violations:\n%s", sum.found, out.String())
	}
	for _, k := range []faultKind{faultKill, faultStop, faultTerminate, faultDrain} {
		if sum.faults[k] == 0 {
			t.Errorf("no %s fault was injected:\n%s", faultNames[k], out.String())
		}
	}
	if sum.faults[faultRestartPG] != 0 {
		t.Errorf("PostgreSQL was restarted without a command")
	}
	f := sum.figures
	if f.enqueued == 0 || f.completed == 0 || f.retried == 0 || f.failedByDecision == 0 || f.declaredDead == 0 {
		t.Errorf("the run did not exercise enqueues, completions, retries, failures and dead workers: %+v\n%s", f, out.String())
	}
	t.Log(out.String())
}
