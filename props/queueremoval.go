package props

import (
	"fmt"
	"time"
)

// Property QueueRemoval (worker.Worker.RemoveQueue and AddQueue, drawn by
// the simulator's queue-churn): a running worker's removed queue drains
// as at a shutdown.
//
//   - Once a process removed a queue, no job pass of a tick it began after
//     the removal asks for that queue, until it adds the queue back. (A
//     pass whose store call was out at the removal was made with the old
//     list: its jobs are the queue's like any other.)
//   - A process reports a queue drained only if it removed it and, as at
//     the end of a graceful shutdown, no job of the queue that it started
//     or that runs under its worker is without a result.
//
// A new life of the process starts with every queue again.

// removal is a queue a process removed: when, and whether a tick began
// since.
type removal struct {
	at     time.Time
	ticked bool
}

// queueRemoved notes that e's process removed e.Queue.
func (c *Checker) queueRemoved(e *Event) {
	p := c.proc(e)
	if p.removed == nil {
		p.removed = map[string]*removal{}
	}
	p.removed[e.Queue] = &removal{at: e.Time}
}

// queueAdded notes that e's process reserves from e.Queue again.
func (c *Checker) queueAdded(e *Event) { delete(c.proc(e).removed, e.Queue) }

// removalsTicked notes that p began a tick: its job pass is made with the
// list its removals left.
func (p *procState) removalsTicked() {
	for _, r := range p.removed {
		r.ticked = true
	}
}

// checkPassQueues judges a job pass's queues against its process's removals.
func (c *Checker) checkPassQueues(p *procState, e *Event) {
	for _, q := range e.PassQueues {
		if r := p.removed[q]; r != nil && r.ticked {
			c.report(QueueRemoval, fmt.Sprintf("process %s asked for queue %s in a job pass at %s, in a tick begun after it removed the queue at %s",
				p.name, q, formatTime(e.Time), formatTime(r.at)))
		}
	}
}

// queueDrained judges a removed queue's drain.
func (c *Checker) queueDrained(e *Event) {
	p := c.proc(e)
	if _, removed := p.removed[e.Queue]; !removed {
		c.report(QueueRemoval, fmt.Sprintf("process %s reported queue %s drained, which it has not removed", p.name, e.Queue))
		return
	}
	var left []JobRow
	for _, r := range c.unfinishedOf(e.Worker, p) {
		if r.Queue == e.Queue {
			left = append(left, r)
		}
	}
	if len(left) > 0 {
		c.report(QueueRemoval, fmt.Sprintf("process %s reported removed queue %s drained at %s, but %d of its jobs that the process started or reserved have no result",
			p.name, e.Queue, formatTime(e.Time), len(left)), withJobs(left...))
	}
}
