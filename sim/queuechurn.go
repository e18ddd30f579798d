package sim

import (
	"slices"

	"github.com/tickwork/tickwork/worker/engine"
)

// The workload of a running worker's queue changes (worker.AddQueue and
// RemoveQueue): with the QueueChurn kind on, each process now and then
// removes one of its queues, which drains as at shutdown, or adds back
// one it removed, by stepping its runner's policy as worker.Run does. A
// process keeps at least one queue, a new incarnation starts with them
// all, and at quiescence every process adds back what it removed, so that
// every job still finds a worker.

// queueChurn has p remove a queue it reserves from, or add back the one
// drawn if it removed it.
func (s *sim) queueChurn(p *proc) {
	defer s.armProcFault(p, QueueChurn)
	if p.policy == nil || p.draining || s.phase != chaos {
		return
	}
	queues := s.cfg.Queues
	q := queues[s.procRand(p, QueueChurn).IntN(len(queues))]
	s.count(QueueChurn)
	if i, found := slices.BinarySearch(p.removedQueues, q); found {
		p.removedQueues = slices.Delete(p.removedQueues, i, i+1)
		s.tr.printf(s.now, p.name, "queue %s added back", q)
		s.step(p, engine.Input{Kind: engine.InQueueAdded, Queue: q})
		return
	} else if len(p.removedQueues)+1 < len(queues) {
		p.removedQueues = slices.Insert(p.removedQueues, i, q)
		s.tr.printf(s.now, p.name, "queue %s removed", q)
		s.step(p, engine.Input{Kind: engine.InQueueRemoved, Queue: q})
	}
}

// restoreQueues has p add back every queue it removed, at quiescence: one
// a step, the next by an event of its own, which waits while the step's
// store call is out (stepping again during it broke the runner: seed 289,
// -store pg -interleave -duration 10s).
func (s *sim) restoreQueues(p *proc) {
	if p.policy == nil || len(p.removedQueues) == 0 {
		p.removedQueues = nil
		return
	}
	q := p.removedQueues[0]
	p.removedQueues = p.removedQueues[1:]
	s.tr.printf(s.now, p.name, "queue %s added back", q)
	s.step(p, engine.Input{Kind: engine.InQueueAdded, Queue: q})
	if len(p.removedQueues) > 0 {
		s.at(s.now, &event{kind: evQueuesRestored, w: p.idx, inc: p.inc})
	}
}
