package main

import (
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// deadVacuumThreshold is how many dead rows in jobs make the "dead" vacuum
// mode vacuum it: about 5,000 jobs' worth (each leaves two dead versions).
const deadVacuumThreshold = 10_000

// deadVacuumInterval is the least time between two of its vacuums: the
// leader's duties run every 500 ms, and at thousands of jobs per second
// the threshold comes round within a few seconds.
const deadVacuumInterval = time.Second

// vacuumCount counts the vacuum duty's vacuums and their failures.
type vacuumCount struct{ ran, failed atomic.Int64 }

// withVacuumDuty turns the worker's vacuum duty on in mode "dead" (the
// library's own duty: worker run -vacuum-dead-rows), counting its vacuums;
// other modes leave cfg as it is.
func withVacuumDuty(mode string, cfg worker.Config, o *worker.Options) (worker.Config, *vacuumCount) {
	n := &vacuumCount{}
	if mode != "dead" {
		return cfg, n
	}
	cfg.VacuumDeadRows, cfg.VacuumInterval = deadVacuumThreshold, deadVacuumInterval
	o.Observer = engine.ObserverFunc(func(e engine.Event) {
		if e.Kind != engine.EventVacuumEnded {
			return
		}
		if n.ran.Add(1); e.Err != nil {
			n.failed.Add(1)
		}
	})
	return cfg, n
}
