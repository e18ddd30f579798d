package engine

import (
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Cancelling a running job's handler. A cancel of a running row notifies
// the cancel channel with its id, and the runner that executes it cancels
// that handler's context at once (ActCancelJobs). A notification may be
// lost, so the job pass also asks which executing jobs were cancelled, at
// most cancelChecksPerPoll times per poll interval: a worker ticks at
// least once per poll interval (plus jitter), so a lost notification still
// reaches the handler within about 1.2 poll intervals, while a busy worker
// that ticks every few milliseconds pays for the check only every tenth of
// a poll interval. The row's result is fenced off either way.

// cancelChecksPerPoll is how many cancel checks a poll interval holds at
// most.
const cancelChecksPerPoll = 10

// Reasons an ActCancelJobs gives for how the runner learned of the cancel.
const (
	CancelByNotification = "notification"
	CancelByJobPass      = "job pass"
)

// cancelCheck returns the executing jobs the next job pass asks about, in
// id order: those whose contexts are not cancelled yet, when a tenth of
// the poll interval has passed on the local clock since the last check;
// none otherwise.
func (c *Core) cancelCheck() []ulid.ULID {
	if c.contextsDone || len(c.executing) == len(c.stopped) ||
		!due(c.now, c.lastCancelCheck, c.cfg.PollInterval/cancelChecksPerPoll) {
		return nil
	}
	ids := make([]ulid.ULID, 0, len(c.executing)-len(c.stopped))
	for id := range c.executing {
		if !c.stopped[id] {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	return ids
}

// noteCancelCheck records a committed pass's answer to the cancel check
// that asked about asked: the jobs found cancelled go to the tick's result.
func (c *Core) noteCancelCheck(worker ulid.ULID, asked []ulid.ULID, res store.JobPassResult) {
	if len(asked) == 0 {
		return
	}
	c.lastCancelCheck = c.now
	c.cancelFound = append(c.cancelFound, res.Cancelled...)
	e := c.note(EventCancelChecked, worker, res.Now)
	e.Jobs, e.Count = asked, len(res.Cancelled)
}

// cancelWanted reports whether id is an executing job whose context is
// still to be cancelled.
func (c *Core) cancelWanted(id ulid.ULID) bool {
	_, ok := c.executing[id]
	return ok && !c.stopped[id] && !c.contextsDone
}

// cancelJobs returns the action that cancels the contexts of the jobs
// among ids that are executing and not yet cancelled, or nil when there
// are none.
func (p *Policy) cancelJobs(ids []ulid.ULID, reason string, out []Action) []Action {
	var wanted []ulid.ULID
	for _, id := range ids {
		if p.core.cancelWanted(id) && !slices.Contains(wanted, id) {
			wanted = append(wanted, id)
		}
	}
	if len(wanted) == 0 || mutant.On(mutant.CancelFencesOnly) {
		return out
	}
	return append(out, Action{Kind: ActCancelJobs, JobIDs: wanted, Reason: reason})
}

// ReportJobsCancelled is how a driver reports that it carried out a, an
// ActCancelJobs: the core stops asking about those jobs, and its observer
// gets an EventJobCancelled for each, so that a history shows the
// cancellation that really happened.
func (p *Policy) ReportJobsCancelled(a Action) {
	c := p.core
	for _, id := range a.JobIDs {
		if !c.cancelWanted(id) {
			continue
		}
		c.stopped[id] = true
		job := c.executing[id]
		e := c.event(EventJobCancelled, job.StartedBy)
		e.Job, e.Reason = *job, a.Reason
		c.emit(e)
	}
}
