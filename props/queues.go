package props

import (
	"fmt"

	"github.com/oklog/ulid/v2"
)

// The properties of the reservation-side controls,
// decided at the end of each commit that reserved jobs:
//
//   - Priorities: no reservation takes a job while a ready job of a
//     smaller priority number in the same queue stays available in the
//     same commit (only with Params.SerialTransactions: otherwise that job
//     may have been locked by another transaction).
//   - Queue pause: no reservation from a paused queue commits after the
//     pause.
//   - Pause all: no reservation from any queue commits after a PauseAll
//     (the queues row named store.AllQueues, "") committed and before its
//     ResumeAll. A reservation that began before the pause committed
//     commits first in every store (store/pg orders them by the advisory
//     lock of that row), so a commit after the pause is one that began
//     after it.
//   - Queue limit: no reservation leaves more jobs of a queue running than
//     its limit.
//   - Queue rate (rate.go): no reservation leaves more starts of a queue in
//     the window of its rate's period than the rate.
//   - Queue per-key limit and per-key fairness: keys.go.
//
// A job that waits for its key's limit (keys.go) is not one a
// reservation could have taken: Priorities and properties 21 and 22 pass
// over it.

// queueIndex is what the checker keeps per queue for these properties.
type queueIndex struct {
	rows      map[string]QueueRow
	running   map[string]int
	available map[string]map[ulid.ULID]int // each queue's available rows, with their priority
	// priorities counts each queue's available rows by priority: a
	// reservation's check of Priorities scans the queue's backlog only if
	// a smaller priority number than its row's is available at all,
	// which the reservations, taking the smallest first, seldom leave.
	priorities map[string]map[int]int
	rates      map[string]*RateWindow
}

func newQueueIndex() queueIndex {
	return queueIndex{rows: map[string]QueueRow{}, running: map[string]int{}, available: map[string]map[ulid.ULID]int{},
		priorities: map[string]map[int]int{}, rates: map[string]*RateWindow{}}
}

// QueueLoad returns how many of queue's jobs run and its limit (0 for
// none), as the events stepped so far leave them.
func (c *Checker) QueueLoad(queue string) (running, limit int) {
	return c.queues.running[queue], c.queues.rows[queue].Limit
}

// queueChange applies one queues row change.
func (c *Checker) queueChange(before, after *QueueRow) {
	c.queues.rateChange(rowName(before, after), after)
	if after == nil {
		delete(c.queues.rows, before.Name)
		return
	}
	c.queues.rows[after.Name] = *after
}

// indexJob keeps the per-queue counts in step with one row change.
func (qi *queueIndex) indexJob(id ulid.ULID, before, after *JobRow) {
	if before != nil {
		switch before.Status {
		case Running:
			qi.running[before.Queue]--
		case Available:
			qi.dropAvailable(before.Queue, id)
		}
	}
	if after != nil {
		switch after.Status {
		case Running:
			qi.running[after.Queue]++
			if w := qi.rates[after.Queue]; w != nil && (before == nil || before.Status != Running) {
				w.Start(after.StartedAt)
			}
		case Available:
			qi.addAvailable(after.Queue, id, after.Priority)
		}
	}
}

// addAvailable notes row id of queue, of priority pri, as available.
func (qi *queueIndex) addAvailable(queue string, id ulid.ULID, pri int) {
	qi.dropAvailable(queue, id) // a history that repeats a row must not count it twice
	m := qi.available[queue]
	if m == nil {
		m = map[ulid.ULID]int{}
		qi.available[queue] = m
		qi.priorities[queue] = map[int]int{}
	}
	m[id] = pri
	qi.priorities[queue][pri]++
}

// dropAvailable notes that row id of queue is no longer available.
func (qi *queueIndex) dropAvailable(queue string, id ulid.ULID) {
	pri, ok := qi.available[queue][id]
	if !ok {
		return
	}
	delete(qi.available[queue], id)
	counts := qi.priorities[queue]
	if counts[pri]--; counts[pri] == 0 {
		delete(counts, pri)
	}
}

// smallerAvailable reports whether a row of queue with a smaller priority
// number than pri is available.
func (qi *queueIndex) smallerAvailable(queue string, pri int) bool {
	for p := range qi.priorities[queue] {
		if p < pri {
			return true
		}
	}
	return false
}

// checkReservations checks the rows the commit reserved against the
// controls of their queues, once every row of the commit is applied.
func (c *Checker) checkReservations(e *Event, sc *commitScope) {
	rated := map[string]bool{}
	for _, id := range sc.reserved {
		st := c.jobs[id]
		if st == nil || st.row.Status != Running {
			continue
		}
		r := st.row
		q, controlled := c.queues.rows[r.Queue]
		if controlled && !q.PausedAt.IsZero() {
			c.report(QueuePause, fmt.Sprintf("job %s of queue %s reserved at %s, after the pause of the queue at %s committed",
				id, r.Queue, formatTime(e.Time), formatTime(q.PausedAt)), withJobs(r))
		}
		if c.pausedAll() {
			c.report(QueuePauseAll, fmt.Sprintf("job %s of queue %s reserved at %s, after the pause of all queues at %s committed",
				id, r.Queue, formatTime(e.Time), formatTime(c.queues.rows[""].PausedAt)), withJobs(r))
		}
		if n := c.queues.running[r.Queue]; controlled && q.Limit > 0 && n > q.Limit {
			c.report(QueueLimit, fmt.Sprintf("job %s of queue %s reserved with %d of the queue's jobs running, over its limit %d",
				id, r.Queue, n, q.Limit), withJobs(r))
		}
		if controlled {
			c.checkKeyLimit(r, q)
		}
		if !rated[r.Queue] {
			rated[r.Queue] = true
			c.checkRate(e, r.Queue, r)
		}
		if c.params.SerialTransactions {
			c.checkPriority(e, r)
		}
	}
	c.checkFairness(e, sc.reserved)
}

// checkPriority reports a ready row of r's queue that a smaller priority
// number should have had reserved before r. The available rows are few
// (a queue's backlog), so a scan is fine.
func (c *Checker) checkPriority(e *Event, r JobRow) {
	if !c.queues.smallerAvailable(r.Queue, r.Priority) {
		return
	}
	for id := range c.queues.available[r.Queue] {
		k := &c.jobs[id].row
		if k.Priority < r.Priority && !k.ScheduledAt.After(e.Time) && !c.keyHeld(r.Queue, k.PartitionKey) && !c.sequenceHeld(k) {
			c.report(Priorities, fmt.Sprintf("job %s of priority %d reserved while job %s of priority %d stayed available in queue %s",
				r.ID, r.Priority, k.ID, k.Priority, r.Queue), withJobs(r, *k))
			return
		}
	}
}

// pausedAll reports whether the pause of all queues (the queues row named
// "", store.AllQueues) is in effect.
func (c *Checker) pausedAll() bool {
	q, ok := c.queues.rows[""]
	return ok && !q.PausedAt.IsZero()
}

func normQueue(r *QueueRow) { r.PausedAt = normTime(r.PausedAt) }

// rowName is the name of the queue a change is of.
func rowName(before, after *QueueRow) string {
	if after != nil {
		return after.Name
	}
	return before.Name
}
