package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// scheduleState is what property 7 remembers of one schedule.
type scheduleState struct {
	lastRun  ulid.ULID // attempt 0 of its latest run
	lastCron time.Time // the cron time of that run
}

// schedule returns the state of schedule name, creating it.
func (c *Checker) schedule(name string) *scheduleState {
	s := c.scheds[name]
	if s == nil {
		s = &scheduleState{}
		c.scheds[name] = s
	}
	return s
}

// checkScheduleRuns checks every run of a schedule the commit enqueued.
func (c *Checker) checkScheduleRuns(e *Event, sc *commitScope) {
	for _, id := range sc.inserted {
		if st := c.jobs[id]; st != nil && st.row.root() && st.row.ScheduleName != "" {
			c.scheduleRun(e, st.row, sc)
		}
	}
}

// scheduleRun checks a new run of a schedule (property 7): it is due at the
// next cron time after its creation (missed times are not made up; a
// schedule with no cron time ahead has no run), at a cron time later than
// the previous run's (at most one job per cron time; with the first, no
// earlier than the cron time after it: a schedule never fires before its
// next time), and the previous run's chain has ended (runs never overlap).
func (c *Checker) scheduleRun(e *Event, r JobRow, sc *commitScope) {
	name := r.ScheduleName
	sc.leader("enqueued a run of schedule", ulid.ULID{}, name)
	s := c.schedule(name)
	if cs, ok := c.crons[name]; !ok {
		c.report(ScheduleRuns, fmt.Sprintf("job %s is a run of schedule %q, which the params do not list", r.ID, name), withJobs(r))
	} else {
		created := r.CreatedAt
		if created.IsZero() {
			created = e.Time
		}
		switch want := cs.Next(created.UTC()); {
		case want.IsZero():
			c.report(ScheduleRuns, fmt.Sprintf("run %s of schedule %s is due at %s, but the schedule has no cron time after its creation at %s",
				r.ID, name, formatTime(r.ScheduledAt), formatTime(created)), withJobs(r))
		case !want.Equal(r.ScheduledAt):
			c.report(ScheduleRuns, fmt.Sprintf("run %s of schedule %s is due at %s, but the next cron time after its creation at %s is %s",
				r.ID, name, formatTime(r.ScheduledAt), formatTime(created), formatTime(want)), withJobs(r))
		}
	}
	if !s.lastCron.IsZero() && !r.ScheduledAt.After(s.lastCron) {
		c.report(ScheduleRuns, fmt.Sprintf("run %s of schedule %s is due at %s, not after the previous run %s due at %s",
			r.ID, name, formatTime(r.ScheduledAt), s.lastRun, formatTime(s.lastCron)), withJobs(r))
	}
	if tail := c.unfinishedTail(s.lastRun); tail != nil {
		c.report(ScheduleRuns, fmt.Sprintf("run %s of schedule %s was enqueued while the previous run's attempt %s is %s",
			r.ID, name, tail.ID, tail.Status), withJobs(*tail, r))
	}
	if key := c.keys[name]; r.UniqueKey != key {
		c.report(ScheduleRuns, fmt.Sprintf("run %s of schedule %s carries unique key %q, the schedule's is %q", r.ID, name, r.UniqueKey, key), withJobs(r))
	}
	s.lastRun, s.lastCron = r.ID, r.ScheduledAt
}

// unfinishedTail returns the latest attempt of the chain rooted at root if
// it has not ended, else nil. A deleted chain has ended.
func (c *Checker) unfinishedTail(root ulid.ULID) *JobRow {
	ch := c.chains[root]
	if root.IsZero() || ch == nil {
		return nil
	}
	tail := c.jobs[ch.tail]
	if tail == nil || tail.row.Status.Terminal() {
		return nil
	}
	return &tail.row
}

// scheduleChange checks one schedules row change: advancing it is a leader
// duty and records the latest run's cron time, or a cron time skipped
// because another row held the schedule's unique key; its job pointer
// names the latest attempt of the latest run.
func (c *Checker) scheduleChange(e *Event, before, after *ScheduleRow, sc *commitScope) {
	name := rowID(before, after, func(r *ScheduleRow) string { return r.Name })
	if cur, known := c.schedRows[name]; known && before != nil && cur != *before {
		c.report(WellFormed, fmt.Sprintf("schedule row %s changed from a row the history never had: %v, not %v", name, *before, cur))
	}
	if after == nil {
		delete(c.schedRows, name)
		return
	}
	c.schedRows[name] = *after
	var old ScheduleRow
	if before != nil {
		old = *before
	}
	s := c.scheds[name]
	if !after.LastScheduledAt.Equal(old.LastScheduledAt) {
		sc.leader("advanced schedule", ulid.ULID{}, name)
		if s == nil || !after.LastScheduledAt.Equal(s.lastCron) {
			c.scheduleSkip(e, old, *after)
		}
	}
	if ptr := after.LastScheduledJobID; !ptr.IsZero() && ptr != old.LastScheduledJobID {
		c.checkSchedulePointer(name, ptr, s)
	}
}

// releasedIn returns the row of e that let key go: it held the key when
// the transaction skipped the cron time, since a leader's duty pass
// handles the schedules before it rescues the rows of dead workers.
// keyRelease is a unique key's last release: the row that let it go and
// the store time of that commit.
type keyRelease struct {
	holder ulid.ULID
	at     time.Time
}

func releasedIn(e *Event, key string) (ulid.ULID, bool) {
	for _, ch := range e.Jobs {
		if b := ch.Before; key != "" && holdsKey(b) && b.UniqueKey == key {
			return b.ID, true
		}
	}
	return ulid.ULID{}, false
}

// scheduleSkip checks a schedule row advanced to a cron time for which the
// commit enqueued no run: the schedule has a unique key that a row holds,
// the time is the next cron time after the commit's, past the previous
// run's, and the row still points where it did. The skipped time counts
// as used: the next run must come after it.
func (c *Checker) scheduleSkip(e *Event, old, after ScheduleRow) {
	name, at := after.Name, after.LastScheduledAt
	s := c.schedule(name)
	key := c.keys[name]
	holder, held := c.keyHolders[key]
	if !held {
		holder, held = releasedIn(e, key)
	}
	if r, ok := c.keyReleased[key]; !held && ok && !r.at.Before(e.Time) {
		// In commit order a transaction may read the key held and commit
		// after its holder let go. A release whose transaction began no
		// earlier than this one's left the key held as this one began, so
		// this one may have read it held (seen with dependencies drawn:
		// a duty transaction of 11 s, simulate -store pg -interleave
		// -seed 106).
		holder, held = r.holder, true
	}
	var why string
	switch cs := c.crons[name]; {
	case key == "":
		why = "and the schedule has no unique key to skip it for"
	case !held:
		why = fmt.Sprintf("while no row holds its unique key %q", key)
	case cs == nil || !cs.Next(e.Time.UTC()).Equal(at):
		why = "which is not the next cron time after the commit"
	case !s.lastCron.IsZero() && !at.After(s.lastCron):
		why = fmt.Sprintf("not after its latest run's or skip's %s", formatTime(s.lastCron))
	case after.LastScheduledJobID != old.LastScheduledJobID && !pointerDropped(c, old, after):
		why = "and moves its pointer"
	default:
		s.lastCron = at
		return
	}
	var rows []JobRow
	if st := c.jobs[holder]; held && st != nil {
		rows = append(rows, st.row)
	}
	c.report(ScheduleRuns, fmt.Sprintf("schedule row %s records a run at %s that is not its latest run, %s", name, formatTime(at), why), withJobs(rows...))
}

// pointerDropped reports whether the row's pointer went to none because
// the row it pointed at is gone: retention deleted it in the commit, and
// the foreign key emptied the pointer (the job changes are applied first).
func pointerDropped(c *Checker, old, after ScheduleRow) bool {
	return after.LastScheduledJobID.IsZero() && c.jobs[old.LastScheduledJobID] == nil
}

// checkSchedulePointer checks that a schedule row points at the latest
// attempt of the schedule's latest run.
func (c *Checker) checkSchedulePointer(name string, ptr ulid.ULID, s *scheduleState) {
	st := c.jobs[ptr]
	switch {
	case st == nil:
		c.report(WellFormed, fmt.Sprintf("schedule row %s points at job %s, which does not exist", name, ptr))
	case s == nil || st.chain != s.lastRun:
		c.report(ScheduleRuns, fmt.Sprintf("schedule row %s points at job %s, which is not of its latest run", name, ptr), withJobs(st.row))
	default:
		if ch := c.chains[st.chain]; ch != nil && ch.tail != ptr {
			c.report(ScheduleRuns, fmt.Sprintf("schedule row %s points at job %s, not at its run's latest attempt %s", name, ptr, ch.tail), withJobs(st.row))
		}
	}
}

// scheduleFired checks the leader's own account of a run it enqueued
// against the row it committed.
func (c *Checker) scheduleFired(e *Event) {
	st := c.jobs[e.Job]
	if st == nil {
		c.report(ScheduleRuns, fmt.Sprintf("schedule %s fired job %s, which has no row", e.Schedule, e.Job))
		return
	}
	r := st.row
	if r.ScheduleName != e.Schedule || r.Attempt != 0 || !r.ScheduledAt.Equal(e.CronTime) {
		c.report(ScheduleRuns, fmt.Sprintf("schedule %s fired job %s for %s, but the row is attempt %d of schedule %q due at %s",
			e.Schedule, e.Job, formatTime(e.CronTime), r.Attempt, r.ScheduleName, formatTime(r.ScheduledAt)), withJobs(r))
	}
}
