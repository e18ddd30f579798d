package props

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// The properties of per-key limits, decided at the end of each commit
// that reserved jobs of a queue with a per-key limit (QueueRow.KeyLimit):
//
//   - Queue per-key limit (QueueKeyLimit): no reservation leaves more of a
//     queue's jobs with one partition key running than its per-key limit.
//     Jobs without a key are bound by the queue's limit alone.
//   - Per-key fairness (KeyFairness): a job c of such a queue is passed
//     over by a commit that reserves a job r of the same queue when c is
//     available and ready at the commit, sorts before r in reservation
//     order (priority, scheduled_at, id), has another key than r, and its
//     key (if it has one) is under the limit after the commit. A job
//     passed over by more than FairnessSlack commits in a row (a commit
//     that reserves jobs of its queue without passing it over ends the
//     row) is a violation; in a serial history (Params.SerialTransactions)
//     once is, since nothing else can have held c. In a serial history a
//     job pass also leaves no such job that it could have reserved
//     (wakepass.go): a reservation skips over the keys at their limit,
//     it does not stop at them.
//
// Only queues with a per-key limit cost anything here: the counts by key
// are kept for rows that have a key, and the scans read one queue's
// available rows.

// FairnessSlack is how many commits in a row may pass over a job of a key
// under its limit in a history whose transactions overlap: another
// transaction may hold the job (SKIP LOCKED) and then commit without it.
const FairnessSlack = 8

// queueKey names one partition key of one queue.
type queueKey struct{ queue, key string }

// keyIndex is what the checker keeps for these properties.
type keyIndex struct {
	running    map[queueKey]int  // running rows by queue and key (rows with a key only)
	passedOver map[ulid.ULID]int // available rows by the commits in a row that passed them over
	scratch    []string          // checkFairness's queues of one commit
}

func newKeyIndex() keyIndex {
	return keyIndex{running: map[queueKey]int{}, passedOver: map[ulid.ULID]int{}}
}

// indexKeys keeps the running counts by key in step with one row change.
func (ki *keyIndex) indexKeys(id ulid.ULID, before, after *JobRow) {
	if before != nil && before.Status == Running && before.PartitionKey != "" {
		ki.running[queueKey{before.Queue, before.PartitionKey}]--
	}
	if after != nil && after.Status == Running && after.PartitionKey != "" {
		ki.running[queueKey{after.Queue, after.PartitionKey}]++
	}
	if len(ki.passedOver) > 0 && (after == nil || after.Status != Available) {
		delete(ki.passedOver, id)
	}
}

// keyHeld reports whether a job of queue with key must wait for its key's
// limit as the events stepped so far leave it.
func (c *Checker) keyHeld(queue, key string) bool {
	if key == "" { // most jobs: no need to look the queue up
		return false
	}
	limit := c.queues.rows[queue].KeyLimit
	return limit > 0 && c.partitions.running[queueKey{queue, key}] >= limit
}

// KeyLoad returns how many of queue's jobs with key run and the queue's
// per-key limit (0 for none).
func (c *Checker) KeyLoad(queue, key string) (running, limit int) {
	return c.partitions.running[queueKey{queue, key}], c.queues.rows[queue].KeyLimit
}

// checkKeyLimit reports r, just reserved, if its key runs over its
// queue's per-key limit.
func (c *Checker) checkKeyLimit(r JobRow, q QueueRow) {
	if q.KeyLimit == 0 || r.PartitionKey == "" {
		return
	}
	if n := c.partitions.running[queueKey{r.Queue, r.PartitionKey}]; n > q.KeyLimit {
		c.report(QueueKeyLimit, fmt.Sprintf("job %s of queue %s reserved with %d of the queue's jobs of key %q running, over its per-key limit %d",
			r.ID, r.Queue, n, r.PartitionKey, q.KeyLimit), withJobs(r))
	}
}

// checkFairness judges, for each queue with a per-key limit that the
// commit reserved jobs of, the jobs it passed over (see above), in queue
// order.
func (c *Checker) checkFairness(e *Event, reserved []ulid.ULID) {
	queues := c.partitions.scratch[:0]
	for _, id := range reserved {
		if st := c.jobs[id]; st != nil && st.row.Status == Running && c.queues.rows[st.row.Queue].KeyLimit > 0 &&
			!slices.Contains(queues, st.row.Queue) {
			queues = append(queues, st.row.Queue)
		}
	}
	slices.Sort(queues)
	for _, q := range queues {
		c.checkQueueFairness(e, q, reserved)
	}
	c.partitions.scratch = queues[:0]
}

// checkQueueFairness judges the available jobs of queue against the jobs
// of it the commit reserved, and reports the first in id order of those
// passed over too often (map order decides nothing).
func (c *Checker) checkQueueFairness(e *Event, queue string, reserved []ulid.ULID) {
	slack := FairnessSlack
	if c.params.SerialTransactions {
		slack = 0
	}
	var worst, by *JobRow
	for id := range c.queues.available[queue] {
		w := &c.jobs[id].row
		var r *JobRow
		if !w.ScheduledAt.After(e.Time) && !c.keyHeld(queue, w.PartitionKey) && !c.sequenceHeld(w) {
			r = c.overtaker(w, reserved)
		}
		if r == nil {
			delete(c.partitions.passedOver, id)
			continue
		}
		if c.partitions.passedOver[id]++; c.partitions.passedOver[id] > slack && (worst == nil || id.Compare(worst.ID) < 0) {
			worst, by = w, r
		}
	}
	if worst == nil {
		return
	}
	c.report(KeyFairness, fmt.Sprintf("job %s of key %q in queue %s, ready and under its key's limit, passed over by %d commits in a row; "+
		"the last reserved job %s of key %q, which comes after it", worst.ID, worst.PartitionKey, queue, c.partitions.passedOver[worst.ID], by.ID, by.PartitionKey),
		withJobs(*worst, *by))
	delete(c.partitions.passedOver, worst.ID)
}

// overtaker returns a job of reserved, of w's queue and another key, that
// sorts after w in reservation order, or nil.
func (c *Checker) overtaker(w *JobRow, reserved []ulid.ULID) *JobRow {
	for _, id := range reserved {
		st := c.jobs[id]
		if st == nil || st.row.Status != Running || st.row.Queue != w.Queue || st.row.PartitionKey == w.PartitionKey {
			continue
		}
		if sortsBefore(w, &st.row) {
			return &st.row
		}
	}
	return nil
}

// sortsBefore reports whether a comes before b in reservation order.
func sortsBefore(a, b *JobRow) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if !a.ScheduledAt.Equal(b.ScheduledAt) {
		return a.ScheduledAt.Before(b.ScheduledAt)
	}
	return a.ID.Compare(b.ID) < 0
}

// keyReservable reports whether a pass at store time at could reserve
// row r of queue as far as its key is concerned (see reservable).
func (c *Checker) keyReservable(queue string, r *JobRow, at time.Time) bool {
	return !r.ScheduledAt.After(at) && !c.keyHeld(queue, r.PartitionKey)
}

// keyedOr is the property a job pass broke by leaving a job of queue it
// could have reserved: per-key fairness for a queue with a per-key limit,
// p for the others.
func (c *Checker) keyedOr(queue string, p Property) Property {
	if c.queues.rows[queue].KeyLimit > 0 {
		return KeyFairness
	}
	return p
}

// KeyHeldBack reports whether a ready job of queue waits for its key's
// limit at store time at (false at no cost for a queue without a per-key
// limit): the simulator's coverage mark.
func (c *Checker) KeyHeldBack(queue string, at time.Time) bool {
	if c.queues.rows[queue].KeyLimit == 0 {
		return false
	}
	for id := range c.queues.available[queue] {
		if r := &c.jobs[id].row; !r.ScheduledAt.After(at) && c.keyHeld(queue, r.PartitionKey) {
			return true
		}
	}
	return false
}
