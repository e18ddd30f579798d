package props

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
)

// Property 37, queue history: a queue that keeps no history
// (store.Queue.NoHistory) has a job's completion delete its row instead
// of completing it, when nothing keeps the row
// (store/internal/rules.DeletesAtCompletion). The history then shows a
// running row deleted by a worker's commit, and the checker holds it to
// what a completion must be and to that rule:
//
//   - the commit is that of the worker the row runs under (property 6, as
//     for any recorded result);
//   - the row's queue keeps no history as the commit finds it, so a queue
//     that keeps history never loses a row before retention;
//   - nothing keeps the row: no waiting row waits for it, it is no
//     batch's member or callback, its schedule does not name it as its
//     last run, its unique key does not hold while completed, and no
//     earlier attempt of its job is still there to name it as its next.
//
// Rows deleted otherwise are judged by jobDeleted.

// completionDeleted checks a running row a worker's commit deleted.
func (c *Checker) completionDeleted(e *Event, b *JobRow, sc *commitScope) {
	if e.Worker != b.StartedBy {
		c.report(SingleExecution, fmt.Sprintf("worker %s deleted job %s at its completion, which runs under %s (not fenced)",
			e.Worker, b.ID, b.StartedBy), withJobs(*b))
	}
	if !c.queues.rows[b.Queue].NoHistory {
		c.report(QueueHistory, fmt.Sprintf("job %s of queue %s, which keeps history, was deleted at its completion", b.ID, b.Queue), withJobs(*b))
	} else if why := c.keptAtCompletion(b, sc); why != "" {
		c.report(QueueHistory, fmt.Sprintf("job %s was deleted at its completion, but %s", b.ID, why), withJobs(*b))
	}
}

// keptAtCompletion says what keeps running row b at its completion, ""
// for nothing. Whether a row waits for b is judged on the rows as the
// commit found them: a waiting row the commit already released is in
// sc.settled. An earlier attempt is known to be there when its chain's
// first attempt is: rows go from the first of a chain on (a row an earlier
// attempt names is never deleted).
func (c *Checker) keptAtCompletion(b *JobRow, sc *commitScope) string {
	switch {
	case !b.Batch.IsZero():
		return "it is a member of batch " + b.Batch.String()
	case !b.CallbackOf.IsZero():
		return "it is the callback of batch " + b.CallbackOf.String()
	case b.ScheduleName != "" && c.schedRows[b.ScheduleName].LastScheduledJobID == b.ID:
		return "schedule " + b.ScheduleName + " names it as its last run"
	case b.UniqueKey != "" && coversCompleted(b.UniqueWhile):
		return "its unique key holds while completed"
	}
	if st := c.jobs[b.ID]; st != nil && !st.chain.IsZero() && st.chain != b.ID && c.jobs[st.chain] != nil {
		return "an earlier attempt of its job, " + st.chain.String() + ", is still there"
	}
	if child := c.waiterOf(b.ID, sc); !child.IsZero() {
		return "job " + child.String() + " waits for it"
	}
	return ""
}

// coversCompleted reports whether a UniqueWhile list names completed.
func coversCompleted(while string) bool {
	for s := range strings.SplitSeq(while, ",") {
		if Status(s) == Completed {
			return true
		}
	}
	return false
}

// waiterOf returns the smallest id of the rows that waited for parent as
// the commit found them (zero: none): one still waiting for it, or one
// the commit released that had waited for it.
func (c *Checker) waiterOf(parent ulid.ULID, sc *commitScope) ulid.ULID {
	var found ulid.ULID
	for child, first := range c.deps.parents {
		st := c.jobs[child]
		if st == nil || !found.IsZero() && found.Compare(child) < 0 {
			continue
		}
		waits := st.row.Status == Awaiting && strings.Contains(st.row.Parents, parent.String())
		if waits || slices.Contains(sc.settled, child) && slices.Contains(first, parent) {
			found = child
		}
	}
	return found
}
