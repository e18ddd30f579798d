package props

import (
	"fmt"

	"github.com/oklog/ulid/v2"
)

// Property 32, dead letters (DeadLetters): a queue may name a dead-letter
// queue (QueueRow.DeadLetter); a job of it that fails for good then moves
// there: its last row keeps its status, takes the dead-letter queue as
// its Queue and records the queue it failed in as DeadFrom. A redrive is
// an operator's retry of that row: its next attempt goes back to
// DeadFrom. So a job is in one place:
//
//   - a row gets DeadFrom only while failed or lost with no next attempt
//     (it failed for good: a worker that dead-letters a job and retries it
//     too puts it in both queues), from the queue it was in, to another,
//     and never changes it after;
//   - the next attempt of a dead-lettered row is a new row in DeadFrom,
//     numbered one more, without DeadFrom: the chain goes on from the dead
//     row, which stays as history.

// redrivenIn appends to out the rows e inserts as the next row of a
// dead-lettered row, of a row of a redriven chain, or of a row a bulk
// retry retried, so that the retry bound does not refuse them: a redrive
// is an operator's decision, as a retry from the CLI is, and the redriven
// attempt may snooze.
func (c *Checker) redrivenIn(e *Event, out []ulid.ULID) []ulid.ULID {
	for _, ch := range e.Jobs {
		b, a := ch.Before, ch.After
		if a == nil || b == nil || b.NextAttemptID != (ulid.ULID{}) || a.NextAttemptID == (ulid.ULID{}) {
			continue
		}
		if a.DeadFrom != "" || c.inRedrivenChain(a.ID) || e.operatorRetry() {
			out = append(out, a.NextAttemptID)
		}
	}
	return out
}

// inRedrivenChain reports whether row id belongs to a chain that was
// redriven.
func (c *Checker) inRedrivenChain(id ulid.ULID) bool {
	st := c.jobs[id]
	if st == nil || st.chain == (ulid.ULID{}) {
		return false
	}
	ch := c.chains[st.chain]
	return ch != nil && ch.redriven
}

// checkDeadLettered judges a row updated in place against the first rule.
func (c *Checker) checkDeadLettered(b, a *JobRow) {
	switch {
	case a.DeadFrom == b.DeadFrom && a.Queue == b.Queue:
	case b.DeadFrom != "":
		c.report(DeadLetters, fmt.Sprintf("dead-lettered job %s moved from queue %q (dead from %q) to %q (dead from %q)",
			a.ID, b.Queue, b.DeadFrom, a.Queue, a.DeadFrom), withJobs(*b, *a))
	case a.DeadFrom != b.Queue || a.Queue == a.DeadFrom:
		c.report(DeadLetters, fmt.Sprintf("job %s of queue %q moved to queue %q recording dead from %q",
			a.ID, b.Queue, a.Queue, a.DeadFrom), withJobs(*b, *a))
	case (a.Status != Failed && a.Status != Lost) || a.NextAttemptID != (ulid.ULID{}):
		c.report(DeadLetters, fmt.Sprintf("job %s was dead-lettered to queue %q while %s with next attempt %s: it did not fail for good",
			a.ID, a.Queue, a.Status, formatID(a.NextAttemptID)), withJobs(*b, *a))
	}
}

// redriveLink judges the next attempt n of row p that an operator
// retried: a redrive of a dead-lettered row, or a bulk retry.
func (c *Checker) redriveLink(p, n JobRow, newRow bool) {
	prop := DeadLetters
	if p.DeadFrom == "" {
		prop = RetryBounds // a bulk retry of a row in its own queue
	}
	switch {
	case !newRow:
		c.report(prop, fmt.Sprintf("job %s, retried by an operator, links to %s, which is not a new row", p.ID, n.ID), withJobs(p, n))
	case n.Queue != p.home() || n.DeadFrom != "":
		c.report(prop, fmt.Sprintf("job %s, of queue %q (dead from %q), was redriven to queue %q (dead from %q)",
			p.ID, p.Queue, p.DeadFrom, n.Queue, n.DeadFrom), withJobs(p, n))
	case n.Attempt != p.Attempt+1 || n.MaxAttempts != p.MaxAttempts || n.Snoozes != p.Snoozes:
		c.report(prop, fmt.Sprintf("the operator's retry of attempt %d (job %s) is attempt %d", p.Attempt, p.ID, n.Attempt), withJobs(p, n))
	case p.Status != Failed && p.Status != Lost:
		c.report(prop, fmt.Sprintf("job %s got a next attempt while %s", p.ID, p.Status), withJobs(p, n))
	}
}

// home is the queue whose policy bounds row r's job: the queue it was
// dead-lettered from, if it was, else its own.
func (r *JobRow) home() string {
	if r.DeadFrom != "" {
		return r.DeadFrom
	}
	return r.Queue
}
