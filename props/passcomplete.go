package props

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/robfig/cron/v3"
)

// Property 39, leader pass complete: when a leader pass ends, its duties
// left nothing they owed at its store time: no scheduled row due (the
// promotion takes every one), no schedule due (fired, or skipped for its
// unique key; not judged in CommitOrder), no live worker unseen for more than
// Params.DeadThreshold (declared dead; not judged where the history does
// not hold every heartbeat), and no running row under a
// worker that is not live (rescued as lost). In a history in CommitOrder,
// where what a pass owed may commit after its snapshot, by the end of the
// next pass. Retention's share of a pass is property 38's, settling
// waiting rows 29's and callbacks 31's.

// passDone is what property 39 keeps between passes.
type passDone struct {
	// scheduled: the rows in status scheduled, with their scheduled_at.
	scheduled map[ulid.ULID]time.Time
	lag       passLag
	// none: the schedules found with no cron time after the time given
	// (none after a later time either): a cron search that finds nothing
	// reads years of calendar, at every pass.
	none map[string]time.Time
}

// noNextTime reports whether schedule name (cron cs) has no cron time
// after t.
func (p *passDone) noNextTime(name string, cs cron.Schedule, t time.Time) bool {
	if since, ok := p.none[name]; ok && !t.Before(since) {
		return true
	}
	if !cs.Next(t.UTC()).IsZero() {
		return false
	}
	if p.none == nil {
		p.none = map[string]time.Time{}
	}
	p.none[name] = t
	return true
}

// indexScheduled notes a row's new version (nil: deleted).
func (p *passDone) indexScheduled(id ulid.ULID, before, after *JobRow) {
	switch {
	case after != nil && after.Status == Scheduled:
		if p.scheduled == nil {
			p.scheduled = map[ulid.ULID]time.Time{}
		}
		p.scheduled[id] = after.ScheduledAt
	case before != nil && before.Status == Scheduled:
		delete(p.scheduled, id)
	}
}

// checkPassComplete judges what leader pass e left.
func (c *Checker) checkPassComplete(e *Event) {
	c.checkSchedulesFired(e)
	left := c.passLeft(e)
	late := c.passDone.lag.late(slices.Values(left), nil, c.params.CommitOrder)
	if len(late) == 0 {
		return
	}
	id := slices.MinFunc(late, ulid.ULID.Compare)
	by := fmt.Sprintf("leader pass of worker %s at %s", e.Worker, formatTime(e.Time))
	if w, ok := c.workers[id]; ok {
		c.report(PassComplete, fmt.Sprintf("%s left worker %s live, unseen since %s, more than the dead threshold of %v before",
			by, id, formatTime(w.LastSeenAt), c.params.DeadThreshold), withWorkers(w))
		return
	}
	r := c.jobs[id].row
	if r.Status == Running {
		c.report(PassComplete, fmt.Sprintf("%s left job %s running under %s, which is not live", by, id, r.StartedBy), withJobs(r))
		return
	}
	c.report(PassComplete, fmt.Sprintf("%s left job %s scheduled for %s, not promoted", by, id, formatTime(r.ScheduledAt)), withJobs(r))
}

// passLeft returns what pass e owed and left: due scheduled rows, live
// workers past the dead threshold, and running rows of workers not live.
func (c *Checker) passLeft(e *Event) []ulid.ULID {
	var left []ulid.ULID
	for id := range c.passDone.scheduled {
		if c.stillOwed(e, id) {
			left = append(left, id)
		}
	}
	for id := range c.workers {
		if c.stillOwed(e, id) {
			left = append(left, id)
		}
	}
	for w, jobs := range c.runningBy {
		if len(jobs) > 0 && !c.liveWorker(w) {
			for id := range jobs {
				left = append(left, id)
			}
		}
	}
	return left
}

// stillOwed reports whether row id (a job's or a worker's) is one pass e
// owed: a scheduled row due, a live worker past the dead threshold, a
// running row of a worker not live.
func (c *Checker) stillOwed(e *Event, id ulid.ULID) bool {
	if w, ok := c.workers[id]; ok {
		return c.params.DeadThreshold > 0 && !c.params.HeartbeatsUnknown && w.ShutdownAt.IsZero() &&
			oldEnough(e.Time, w.LastSeenAt, c.params.DeadThreshold)
	}
	st := c.jobs[id]
	switch {
	case st == nil:
		return false
	case st.row.Status == Scheduled:
		return !st.row.ScheduledAt.After(e.Time)
	case st.row.Status == Running:
		return !c.liveWorker(st.row.StartedBy)
	}
	return false
}

// liveWorker reports whether worker id has a row and has not shut down.
func (c *Checker) liveWorker(id ulid.ULID) bool {
	w, ok := c.workers[id]
	return ok && w.ShutdownAt.IsZero()
}

// checkSchedulesFired judges, in a history not in CommitOrder, that pass
// e left no schedule due: one whose last cron time came by e's store time,
// whose last run's chain had ended before it (as the leader judges it,
// lastRunActive) and that has a cron time ahead. Of several, the first in
// Params.Schedules is named.
func (c *Checker) checkSchedulesFired(e *Event) {
	if c.params.CommitOrder || len(c.schedRows) == 0 {
		return
	}
	for _, spec := range c.params.Schedules {
		name := spec.Name
		r, rowed := c.schedRows[name]
		cs, known := c.crons[name]
		if !rowed || !known || r.LastScheduledAt.After(e.Time) || c.runActive(r.LastScheduledJobID, e.Time) || c.passDone.noNextTime(name, cs, e.Time) {
			continue
		}
		why := "it has had no run"
		if !r.LastScheduledJobID.IsZero() {
			why = fmt.Sprintf("its last cron time %s came and its last run %s ended", formatTime(r.LastScheduledAt), r.LastScheduledJobID)
		}
		c.report(PassComplete, fmt.Sprintf("leader pass of worker %s at %s left schedule %s due: %s", e.Worker, formatTime(e.Time), name, why))
		return
	}
}

// runActive reports whether the chain of attempts from row id (zero: no
// run) has a row that has not ended, or whose last ended at at or after:
// the pass fires schedules first, so a run its own rescue ended is owed
// only by the next pass.
func (c *Checker) runActive(id ulid.ULID, at time.Time) bool {
	for hops := 0; !id.IsZero() && hops <= len(c.jobs); hops++ {
		st := c.jobs[id]
		if st == nil {
			return false // deleted by retention: long over
		}
		if !st.row.Status.Terminal() || st.row.NextAttemptID.IsZero() && !endOf(&st.row).Before(at) {
			return true
		}
		id = st.row.NextAttemptID
	}
	return false
}
