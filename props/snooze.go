package props

import (
	"fmt"
	"time"
)

// Property 15, snoozes: a handler's Snooze ends its row's run as
// snoozed, and in the same commit a new row takes its place: the same job
// (queue, schedule, priority, bound), the same attempt, one more snooze,
// scheduled the snooze's wait after the row snoozed, so that it starts no
// earlier (reserved checks every start against scheduled_at). A row with
// MaxSnoozes snoozes before it does not snooze: its Snooze fails the job
// for good.

// snoozeLink checks a snoozed row's link to its next row n, a new row of
// the commit (retryLink checked that).
func (c *Checker) snoozeLink(prev *jobState, n JobRow) {
	p := prev.row
	var why string
	switch {
	case n.Attempt != p.Attempt:
		why = fmt.Sprintf("is attempt %d, not the snoozed attempt %d", n.Attempt, p.Attempt)
	case n.Snoozes != p.Snoozes+1:
		why = fmt.Sprintf("counts %d snoozes, want %d", n.Snoozes, p.Snoozes+1)
	case n.Queue != p.Queue || n.ScheduleName != p.ScheduleName || n.Priority != p.Priority || n.MaxAttempts != p.MaxAttempts:
		why = "is not of the same job: its queue, schedule, priority or bound differs"
	case p.Snoozes >= c.params.MaxSnoozes:
		why = fmt.Sprintf("follows a row that had %d snoozes before it, the most MaxSnoozes allows", p.Snoozes)
	case p.CompletedAt.IsZero():
		c.report(WellFormed, fmt.Sprintf("job %s is snoozed without a completed_at", p.ID), withJobs(p))
		return
	default:
		why = c.snoozeWait(prev, n)
	}
	if why != "" {
		c.report(Snoozes, fmt.Sprintf("the row after snoozed job %s %s", p.ID, why), withJobs(p, n))
	}
}

// snoozeWait checks that n waits the snooze its execution asked for (the
// store adds the wait truncated to the microsecond), or at least not less
// than nothing when that execution's end is not in the history.
func (c *Checker) snoozeWait(prev *jobState, n JobRow) string {
	wait := n.ScheduledAt.Sub(prev.row.CompletedAt)
	if prev.decided != Snooze {
		if wait < 0 {
			return fmt.Sprintf("is scheduled %v before the snooze", -wait)
		}
		return ""
	}
	if want := prev.snooze.Truncate(time.Microsecond); wait != want {
		return fmt.Sprintf("is scheduled %v after the snooze, which asked for %v", wait, prev.snooze)
	}
	return ""
}

// snoozeHonoured checks, at the end of the commit that ended it, a row
// whose handler snoozed or that was snoozed: a Snooze decision snoozed
// the row (with a next row in the same commit), or failed the job once
// MaxSnoozes were used (retryLink refuses its retry); and only a Snooze
// decision snoozes a row.
func (c *Checker) snoozeHonoured(st *jobState) {
	r := st.row
	switch {
	case r.Status == Snoozed && st.decided != Snooze && st.decided != "":
		c.report(Snoozes, fmt.Sprintf("job %s was snoozed, but its handler decided %s", r.ID, st.decided), withJobs(r))
	case r.Status == Snoozed && r.NextAttemptID.IsZero():
		c.report(Snoozes, fmt.Sprintf("job %s was snoozed without a next row in that transaction", r.ID), withJobs(r))
	case r.Status == Failed && r.Snoozes < c.params.MaxSnoozes:
		c.report(Snoozes, fmt.Sprintf("job %s failed on a Snooze with %d snoozes, fewer than MaxSnoozes %d", r.ID, r.Snoozes, c.params.MaxSnoozes),
			withJobs(r))
	}
}
