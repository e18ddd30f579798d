package engine

import (
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// TestHandingOutCopiesNoRow holds a pass's hand-out and the jobs'
// results to far fewer allocations than jobs: the core keeps pointers into
// the rows the store returned. A map of rows allocated every row anew (a
// job row is larger than a map keeps in place), 42% of what the worker
// process allocated per job in the throughput benchmark.
func TestHandingOutCopiesNoRow(t *testing.T) {
	e := newEnv(t)
	c, err := NewCore(e.st, testConfig(), clockrng.NewRand(1), ObserverFunc(func(Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	worker := ulid.ULID{1}
	jobs := make([]store.Job, 100)
	for i := range jobs {
		jobs[i] = store.Job{ID: ulid.ULID{2, byte(i)}, Queue: "q", Status: store.Running, StartedBy: worker}
	}
	cycle := func() {
		c.handOut(jobs, "")
		for _, j := range jobs {
			c.finished(Result{JobID: j.ID, Decision: Succeed})
		}
		c.pending = c.pending[:0]
	}
	cycle() // the map and the pending list reach their size
	if allocs := testing.AllocsPerRun(20, cycle); allocs > float64(len(jobs))/10 {
		t.Fatalf("handing out and finishing %d jobs allocated %.0f times, want at most %d", len(jobs), allocs, len(jobs)/10)
	}
}
