package props

import (
	"fmt"
	"maps"
	"slices"

	"github.com/oklog/ulid/v2"
)

// checkNoLostJobs decides property 4 on the final rows, in id order: every
// row has ended (but for each schedule's next run, waiting for its cron
// time while the schedule exists), a snoozed row has its next row, and a
// failed or lost row without a next attempt had no retry left by its
// job's bound or failed for good by its handler's decision (Fail, or a
// Snooze past MaxSnoozes), unless that decision was lost: the process
// crashed between the commit and the log line that carries it. A lost row
// never failed by decision: it must be retried while attempts remain.
func (c *Checker) checkNoLostJobs() {
	for _, id := range slices.SortedFunc(maps.Keys(c.jobs), ulid.ULID.Compare) {
		st := c.jobs[id]
		r := st.row
		switch {
		case c.nextCronRun(r):
		case !r.Status.Terminal() && c.waitsForOperator(&st.row, 0):
		case !r.Status.Terminal():
			c.report(NoLostJobs, fmt.Sprintf("job %s is still %s at the end of the run", id, r.Status), withJobs(r))
		case r.Status == Snoozed && !st.linked:
			c.report(NoLostJobs, fmt.Sprintf("job %s snoozed and has no next row to run it", id), withJobs(r))
		case r.Status != Failed && r.Status != Lost, st.linked, r.Attempt+1 >= c.bound(r):
		case r.Status == Failed && (st.decided == Fail || st.decided == Snooze && r.Snoozes >= c.params.MaxSnoozes):
		case r.Status == Failed && st.unlogged: // the decision died with its process
		default:
			c.report(NoLostJobs, fmt.Sprintf("attempt %d of job %s ended %s (%q) with retries left and no next attempt (handler decision: %s)",
				r.Attempt, id, r.Status, r.FailedReason, decisionText(st.decided)), withJobs(r))
		}
	}
}

// waitsForOperator reports whether r may stay unfinished at the end of a
// run because an operator must act first: it waits behind a row that
// halts its sequence (sequence.go), or it waits for a parent, along its
// attempts, that waits so in turn (dependencies.go). depth bounds the walk
// up the parents, which no cycle can make endless but a long chain could.
func (c *Checker) waitsForOperator(r *JobRow, depth int) bool {
	if c.haltedBehind(r) {
		return true
	}
	if r.Status != Awaiting || depth > maxParentDepth {
		return false
	}
	if r.CallbackOf == r.ID && c.memberWaitsForOperator(r.ID, depth) {
		return true
	}
	for _, p := range parseParents(r.Parents) {
		if cur, ok := c.current(p); ok && !cur.Status.Terminal() && c.waitsForOperator(&cur, depth+1) {
			return true
		}
	}
	return false
}

// memberWaitsForOperator reports whether a member of batch cb that has
// not ended waits for an operator (waitsForOperator): its callback waits
// for it in turn (batch.go).
func (c *Checker) memberWaitsForOperator(cb ulid.ULID, depth int) bool {
	for _, m := range c.batches.members[cb] {
		if st := c.jobs[m]; st != nil && st.row.Batch == cb && !st.row.Status.Terminal() && c.waitsForOperator(&st.row, depth+1) {
			return true
		}
	}
	return false
}

// maxParentDepth bounds waitsForOperator's walk.
const maxParentDepth = 64

// decisionText renders a decision, or "none" when no handler's decision
// reached the row.
func decisionText(d Decision) string {
	if d == "" {
		return "none"
	}
	return string(d)
}

// nextCronRun reports whether r is the latest run of a schedule, still
// waiting to be promoted: a schedule always has one.
func (c *Checker) nextCronRun(r JobRow) bool {
	if r.Status != Scheduled || !r.root() || r.ScheduleName == "" {
		return false
	}
	s := c.scheds[r.ScheduleName]
	return s != nil && s.lastRun == r.ID
}
