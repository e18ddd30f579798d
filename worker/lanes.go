package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tickwork/tickwork/worker/engine"
)

// A worker with Options.Lanes above one runs that many cores in its
// process, each a worker of its own in the store (its own id, heartbeat,
// lease candidacy and share of MaxConcurrent and MaxFetch), all with the
// same handlers. A core's job pass is one transaction at a time, which
// PostgreSQL runs on one backend: with many jobs in flight, the pass of
// one lane runs while the jobs of another run, and two passes use two
// cores of the server. On the 2-core development machine, with 1,000 jobs
// in flight, two lanes moved a third to a half more jobs a second than
// one (bench compare: 79,000 and 87,000 against 61,000 and 55,000 with
// 100,000 and 1,000,000 waiting). With 100 in flight two lanes were as
// fast as one while the machine was otherwise idle and a fifth faster
// while it was shared (a median of 1.87 times River's rate against 1.54,
// eight and five alternating runs); three and four lanes were slower
// there, their passes too small. The rule of thumb is thus two lanes from
// about 100 jobs in flight and one more per 500 beyond 1,000. Lanes cost
// the database, though: a pass costs the server about 680 µs whatever it
// carries (bench/RESULTS.md), and each lane's passes carry its share of
// the jobs, so at 100 in flight two lanes spent 29 µs of the server's
// time a job against 20 with one, at the same rate. Where the database is
// what runs short, one lane serves up to about 1,000 jobs in flight. Each lane is
// exactly a worker of the simulator's: the properties hold for it as for
// any other.

// MaxLanes bounds Options.Lanes.
const MaxLanes = 64

// validateLanes checks Options.Lanes against the configuration it shares
// out and returns the lanes to run (0 means 1).
func validateLanes(lanes int, cfg Config) (int, error) {
	switch {
	case lanes == 0:
		return 1, nil
	case lanes < 0 || lanes > MaxLanes:
		return 0, fmt.Errorf("worker: Lanes is %d, must be 1 to %d", lanes, MaxLanes)
	case lanes > cfg.MaxConcurrent:
		return 0, fmt.Errorf("worker: Lanes is %d, more than MaxConcurrent %d: every lane runs at least one job", lanes, cfg.MaxConcurrent)
	}
	return lanes, nil
}

// share returns lane i's part of n shared out among lanes, the first lanes
// one more when n does not share evenly; never below one.
func share(n, lanes, i int) int {
	part := n / lanes
	if i < n%lanes {
		part++
	}
	return max(part, 1)
}

// runLanes runs w.lanes cores at once, each with its share of
// MaxConcurrent and MaxFetch and its own source of randomness drawn from
// the worker's, and returns when all have shut down. The events of all
// reach the logs and the Observer one at a time.
func (w *Worker) runLanes(ctx context.Context, cfg Config, handlers map[string]*handler) error {
	var mu sync.Mutex
	observe := func(e engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		w.observe(e)
	}
	errs := make([]error, w.lanes)
	var wg sync.WaitGroup
	for i := range w.lanes {
		lane := cfg
		lane.MaxConcurrent = share(cfg.MaxConcurrent, w.lanes, i)
		lane.MaxFetch = min(share(cfg.MaxFetch, w.lanes, i), lane.MaxConcurrent)
		rand := w.rand.ChildN("lane", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.runLane(ctx, lane, handlers, rand, observe, w.lanesCtl[i]); err != nil {
				errs[i] = fmt.Errorf("lane %d: %w", i+1, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
