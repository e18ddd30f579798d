package sim

import "github.com/tickwork/tickwork/props"

// rowBook counts the job rows quiescence is waiting for: running,
// available, and scheduled rows other than a schedule's next cron run
// (which is always there while a schedule exists). attempts is how many
// runs those rows may still take, retries and snoozes included: the work
// quiescence must leave time for.
type rowBook struct {
	runsLeft                              func(*props.JobRow) int
	running, available, waiting, attempts int
}

func (b *rowBook) change(before, after *props.JobRow) {
	b.add(before, -1)
	b.add(after, +1)
}

func (b *rowBook) add(r *props.JobRow, n int) {
	if r == nil {
		return
	}
	switch r.Status {
	case props.Running:
		b.running += n
	case props.Available:
		b.available += n
	case props.Scheduled:
		if r.ScheduleName != "" && r.Attempt == 0 && r.Snoozes == 0 { // a schedule's next run, not its snooze
			return
		}
		b.waiting += n
	case props.Awaiting: // waits for its parents: it runs or is cancelled before the run may end
		b.waiting += n
	default:
		return
	}
	b.attempts += n * b.runsLeft(r)
}

// settled reports whether no job row is left to run.
func (b *rowBook) settled() bool { return b.running == 0 && b.available == 0 && b.waiting == 0 }
