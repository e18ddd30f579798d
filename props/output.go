package props

import "fmt"

// checkOutput checks a row's output across one change: it may only appear
// when a running row completes, and then it is the output the row's
// execution recorded, if that execution's end is in the history.
func (c *Checker) checkOutput(b, a *JobRow) {
	completes := b.Status == Running && a.Status == Completed
	if a.Output != b.Output && !completes {
		c.report(RecordedOutput, fmt.Sprintf("job %s's output changed from %q to %q as it went from %s to %s",
			a.ID, b.Output, a.Output, b.Status, a.Status), withJobs(*b, *a))
		return
	}
	st := c.jobs[a.ID]
	if completes && st != nil && st.decided == Succeed && a.Output != st.output {
		c.report(RecordedOutput, fmt.Sprintf("job %s completed with output %q, its handler recorded %q", a.ID, a.Output, st.output),
			withJobs(*b, *a))
	}
}
