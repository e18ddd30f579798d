package sim

import "github.com/tickwork/tickwork/props"

// rowBook counts the job rows quiescence is waiting for: running,
// available, and scheduled rows other than a schedule's next cron run
// (which is always there while a schedule exists).
type rowBook struct {
	running, available, waiting int
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
		if r.ScheduleName == "" || r.Attempt > 0 {
			b.waiting += n
		}
	}
}

// settled reports whether no job row is left to run.
func (b *rowBook) settled() bool { return b.running == 0 && b.available == 0 && b.waiting == 0 }
