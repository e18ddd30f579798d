package engine

import (
	"maps"
	"slices"

	"github.com/tickwork/tickwork/internal/mutant"
)

// A running worker's queues change through the policy, so that the
// simulator drives the change as the production runner does: InQueueAdded
// puts a queue in the list the next job pass reserves from, and
// InQueueRemoved takes it out. A removed queue drains as at shutdown: its
// running jobs finish and their results are recorded by the ticks that
// follow, and nothing more of it is reserved; once none of its jobs runs
// nor waits to be recorded, the policy returns ActQueueDrained. A store
// call out when the change is stepped was made with the old list (the
// driver steps nothing else while a call is out): the jobs it started are
// running jobs of the queue like any other.

// addQueue puts queue in the list the job pass reserves from (a queue
// already there is kept once) and stops waiting for its drain.
func (c *Core) addQueue(queue string) {
	delete(c.removed, queue)
	if i, found := slices.BinarySearch(c.cfg.Queues, queue); !found {
		c.cfg.Queues = slices.Insert(c.cfg.Queues, i, queue)
	}
}

// removeQueue takes queue out of the job pass's list and waits for its
// drain (queueDrains).
func (c *Core) removeQueue(queue string) {
	if i, found := slices.BinarySearch(c.cfg.Queues, queue); found {
		c.cfg.Queues = slices.Delete(c.cfg.Queues, i, i+1)
	}
	c.removed[queue] = true
}

// handles reports whether the job pass reserves from queue.
func (c *Core) handles(queue string) bool {
	_, found := slices.BinarySearch(c.cfg.Queues, queue)
	return found
}

// busyIn reports whether a job of queue runs or has its result unrecorded,
// or may: a reservation whose commit went unseen may have taken some, and
// only the next job pass recovers them (the property QueueRemoval found a
// queue reported drained whose job that pass then started: seed 156).
func (c *Core) busyIn(queue string) bool {
	if mutant.On(mutant.QueueDrainedEarly) {
		return false
	}
	if c.unseenReserve {
		return true
	}
	for _, j := range c.executing {
		if j.Queue == queue {
			return true
		}
	}
	return slices.ContainsFunc(c.pending, func(p pendingResult) bool { return p.job.Queue == queue })
}

// queueDrains returns out with an ActQueueDrained for each removed queue
// that has drained, in name order, before a trailing ActCall or ActExit
// (either must stay last), and stops waiting for them.
func (p *Policy) queueDrains(out []Action) []Action {
	if len(p.core.removed) == 0 {
		return out
	}
	var drained []Action
	for _, q := range slices.Sorted(maps.Keys(p.core.removed)) {
		if !p.core.busyIn(q) {
			delete(p.core.removed, q)
			e := p.core.event(EventQueueDrained, p.core.id)
			e.Reason = q
			p.core.emit(e)
			drained = append(drained, Action{Kind: ActQueueDrained, Queue: q})
		}
	}
	if n := len(out); n > 0 && (out[n-1].Kind == ActCall || out[n-1].Kind == ActExit) {
		return append(append(out[:n-1:n-1], drained...), out[n-1])
	}
	return append(out, drained...)
}

// queueChange steps InQueueAdded or InQueueRemoved.
func (p *Policy) queueChange(in Input, out []Action) []Action {
	if in.Kind == InQueueAdded {
		p.core.addQueue(in.Queue)
		e := p.core.event(EventQueueAdded, p.core.id)
		e.Reason = in.Queue
		p.core.emit(e)
		if p.phase == serving && !p.backingOff && !p.lingering && !p.core.full() {
			return append(out, p.tick("queue added"))
		}
		return out
	}
	p.core.removeQueue(in.Queue)
	e := p.core.event(EventQueueRemoved, p.core.id)
	e.Reason = in.Queue
	p.core.emit(e)
	return out
}
