package props

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
)

// Properties 28 and 29, dependencies: a job may wait (status waiting)
// for parent jobs, each named in JobRow.Parents by its current attempt.
//
//   - Dependency order (DependencyOrder): a row leaves Waiting only for
//     available or scheduled, once every parent it waited for (followed
//     along its retries and snoozes to its current attempt) completed, or
//     ended without completing if the row runs anyway; or for cancelled,
//     by an operator (no reason) or because a parent ended without
//     completing, which its reason "parent <id> <status>" names. A row
//     that goes from Waiting to running in one commit (released and
//     reserved by one job pass) is judged as released. So a job never
//     starts before all its parents completed. A parent the history no longer holds (deleted by
//     retention, or before the history began) is not judged.
//   - Dependencies settled (DependenciesSettled): when a leader pass ends,
//     no waiting row waits for a row that ended: the pass released or
//     cancelled it. Retention never deletes a row a waiting row waits for.
//     In a history in CommitOrder a parent may end after the pass's
//     snapshot and commit before it, so there the next pass must have
//     settled it: leader passes never overlap (the duty lock), and the
//     next one reads it ended.

// depIndex follows the waiting rows.
type depIndex struct {
	// parents: each row that waits -> the parents it waited for when it
	// was first seen waiting; dropped when it leaves Waiting.
	parents map[ulid.ULID][]ulid.ULID
	// lag: the waiting rows owed a release or a cancel by a pass.
	lag passLag
}

// indexWaiting notes a row's new version (nil: deleted). A row that
// leaves Waiting keeps its entry until checkSettled has judged it.
func (d *depIndex) indexWaiting(id ulid.ULID, after *JobRow) {
	if after == nil {
		delete(d.parents, id)
		return
	}
	if _, known := d.parents[id]; !known && after.Status == Awaiting {
		d.parents[id] = parseParents(after.Parents)
	}
}

// parseParents reads JobRow.Parents; an id that does not parse is left
// out (the well-formedness of a store's rows is its own tests' concern).
func parseParents(s string) []ulid.ULID { return slices.Collect(parents(s)) }

// parents yields the ids of JobRow.Parents as parseParents reads them,
// without allocating: the checks that run at every leader pass and commit
// walk the parents of every waiting row.
func parents(s string) iter.Seq[ulid.ULID] {
	return func(yield func(ulid.ULID) bool) {
		if s == "" {
			return
		}
		for f := range strings.SplitSeq(s, ",") {
			if id, err := ulid.ParseStrict(f); err == nil && !yield(id) {
				return
			}
		}
	}
}

// current returns the current attempt of the job whose row id is: id's
// row, or the last of its next attempts the history holds.
func (c *Checker) current(id ulid.ULID) (JobRow, bool) {
	st := c.jobs[id]
	if st == nil {
		return JobRow{}, false
	}
	for !st.row.NextAttemptID.IsZero() {
		next := c.jobs[st.row.NextAttemptID]
		if next == nil {
			break
		}
		st = next
	}
	return st.row, true
}

// endedBadly reports whether a job's current attempt ended without
// completing: cancelled, or failed or lost with no next attempt.
func endedBadly(r JobRow) bool {
	return r.NextAttemptID.IsZero() && (r.Status == Cancelled || r.Status == Failed || r.Status == Lost)
}

// insertedSettled reports whether a new row's status is one a job with
// parents may be inserted in: waiting, or cancelled for a parent that had
// ended (which checkCancelReason judges).
func (c *Checker) insertedSettled(r *JobRow) bool {
	switch {
	case r.Status == Awaiting && (r.Parents != "" || r.CallbackOf == r.ID):
		return true
	case r.Status == Cancelled && strings.HasPrefix(r.FailedReason, "parent "):
		c.checkCancelReason(*r)
		return true
	}
	return false
}

// checkSettled judges, once the commit is applied, the rows it took out
// of Waiting.
func (c *Checker) checkSettled(ids []ulid.ULID) {
	for _, id := range ids {
		st := c.jobs[id]
		parents := c.deps.parents[id]
		delete(c.deps.parents, id)
		if st == nil {
			continue
		}
		switch r := st.row; r.Status {
		case Available, Scheduled, Running:
			c.checkReleased(r, parents)
			c.checkCallbackReleased(r)
		case Cancelled:
			if r.FailedReason != "" {
				c.checkCancelReason(r)
			}
		default: // a job that ran within the same transaction, or worse
			c.report(DependencyOrder, fmt.Sprintf("job %s went from waiting to %s", id, r.Status), withJobs(r))
		}
	}
}

// checkReleased judges a row that left Waiting to run: every parent it
// waited for completed, or ended otherwise if it runs anyway. A parent
// redriven from a dead-letter queue may run again after a job that runs
// anyway let it go: an operator's redrive, as a retry, revives the
// parent, not its dependents' wait.
func (c *Checker) checkReleased(r JobRow, parents []ulid.ULID) {
	for _, p := range parents {
		cur, known := c.current(p)
		if !known || cur.Status == Completed || r.RunAnyway && (endedBadly(cur) || c.inRedrivenChain(p)) {
			continue
		}
		c.report(DependencyOrder, fmt.Sprintf("job %s stopped waiting (now %s) while its parent %s is %s",
			r.ID, r.Status, p, cur.Status), withJobs(r, cur))
		return
	}
}

// checkCancelReason judges a row cancelled for a parent: the parent its
// reason names ended without completing.
func (c *Checker) checkCancelReason(r JobRow) {
	field, _, _ := strings.Cut(strings.TrimPrefix(r.FailedReason, "parent "), " ")
	id, err := ulid.ParseStrict(field)
	if err != nil {
		c.report(DependencyOrder, fmt.Sprintf("job %s was cancelled with reason %q, which names no parent", r.ID, r.FailedReason), withJobs(r))
		return
	}
	if cur, known := c.current(id); known && !endedBadly(cur) {
		c.report(DependencyOrder, fmt.Sprintf("job %s was cancelled for its parent %s, which is %s", r.ID, id, cur.Status), withJobs(r, cur))
	}
}

// checkPassSettled judges the waiting rows at the end of a leader pass:
// none waits for a row that ended.
func (c *Checker) checkPassSettled(e *Event) {
	if len(c.deps.parents) == 0 {
		return
	}
	late := c.deps.lag.late(maps.Keys(c.deps.parents), func(child ulid.ULID) bool {
		_, ended := c.endedParent(child)
		return ended
	}, c.params.CommitOrder)
	if len(late) == 0 {
		return
	}
	child := slices.MinFunc(late, ulid.ULID.Compare)
	p, _ := c.endedParent(child)
	c.report(DependenciesSettled, fmt.Sprintf("leader pass of worker %s ended with job %s still waiting for %s, which is %s",
		e.Worker, child, p.ID, p.Status), withJobs(c.jobs[child].row, p))
}

// endedParent returns a parent of waiting row child whose row ended.
func (c *Checker) endedParent(child ulid.ULID) (JobRow, bool) {
	st := c.jobs[child]
	if st == nil || st.row.Status != Awaiting {
		return JobRow{}, false
	}
	for p := range parents(st.row.Parents) {
		if ps := c.jobs[p]; ps != nil && ps.row.Status.Terminal() {
			return ps.row, true
		}
	}
	return JobRow{}, false
}

// checkParentsDeleted judges, once the commit is applied, the rows it
// deleted: no row still waits for one. Of several, the lowest child is
// named, so that the report does not follow the map's order.
func (c *Checker) checkParentsDeleted(deleted []ulid.ULID) {
	for _, id := range deleted {
		var child *jobState
		for waiting := range c.deps.parents {
			st := c.jobs[waiting]
			if st == nil || st.row.Status != Awaiting || (child != nil && child.row.ID.Compare(waiting) < 0) {
				continue
			}
			for p := range parents(st.row.Parents) {
				if p == id {
					child = st
					break
				}
			}
		}
		if child != nil {
			c.report(DependenciesSettled, fmt.Sprintf("job %s was deleted while job %s waits for it", id, child.row.ID), withJobs(child.row))
			return
		}
	}
}
