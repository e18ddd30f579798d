// Package history maps a worker's events (engine.Event) to the events of
// the history the checker judges (props.Event). It is the one mapping both
// drivers use: the simulator for its simulated workers, and a live
// worker's -history-log, so that a simulated run and a live run are judged
// through the same translation. What only one driver can know (a
// simulator's commits and crashes; a live log's leader terms read back
// from its events) each adds on its own.
package history

import (
	"context"
	"errors"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// Translator translates the events of one worker process, in the order
// its observer receives them. It remembers the lease expiry the worker
// last learned, which a DutiesStarted carries.
type Translator struct {
	expires time.Time
}

// Translate returns the history event e stands for and true, or false
// when e is none the checker reads. The event's Time is e's store time,
// zero for an event no transaction stamped (DeclaredDead, ExecEnded,
// ShutdownBegan, ShutdownAbandoned, ExecsCancelled, ExecCancelled,
// DrainDeadline, ReleaseAbandoned, TickStarted, Waiting, Notified,
// QueueRemoved, QueueAdded, QueueDrained, and JobPass when it ran no
// transaction): the
// driver stamps those with the store time at which they are known to have
// happened. The driver also sets Process.
//
// It fills in *h (meaningless when it returns false) rather than
// returning the event: a props.Event is half a kilobyte, a driver
// translates every event of every worker, and the copies out were a
// twentieth of a simulation.
func (t *Translator) Translate(e *engine.Event, h *props.Event) bool {
	*h = props.Event{}
	h.Time, h.Worker = e.StoreTime, e.Worker
	switch e.Kind {
	case engine.EventLeaseAcquired, engine.EventLeaseRenewed:
		t.expires = e.LeaseExpires
		h.Kind = props.LeasePass
	case engine.EventLeaseLost, engine.EventLeaseReleased:
		t.expires = time.Time{}
		return false
	case engine.EventDeclaredDead:
		t.expires = time.Time{}
		h.Kind = props.DeclaredDead
	case engine.EventDutiesStarted:
		h.Kind, h.LeaseExpires = props.DutiesStarted, t.expires
	case engine.EventHeartbeat:
		h.Kind = props.Heartbeat
	case engine.EventStoreError:
		if e.Reason != "lease" {
			return false
		}
		h.Kind, h.Reason = props.LeasePass, "failed"
	case engine.EventDutiesEnded:
		h.Kind, h.Limit, h.Deleted = props.DutiesEnded, e.Limit, e.Count
	case engine.EventScheduleFired:
		h.Kind, h.Job, h.Schedule, h.CronTime = props.ScheduleFired, e.Job.ID, e.Schedule, e.CronTime
	case engine.EventVacuumClaimed:
		h.Kind, h.DeadRows = props.VacuumClaimed, int64(e.Count)
	case engine.EventVacuumStarted:
		h.Kind = props.VacuumStarted
	case engine.EventResultFenced:
		h.Kind, h.Job = props.ResultFenced, e.Job.ID
	case engine.EventJobStarted:
		h.Kind, h.Job = props.ExecStarted, e.Job.ID
	case engine.EventJobFinished:
		// worker spells decisions as props does
		h.Kind, h.Job, h.Decision, h.Reason = props.ExecEnded, e.Job.ID, props.Decision(e.Decision.String()), e.Reason
		h.Output = string(e.Output)
		if e.Decision == engine.Snooze {
			h.Snooze = e.Delay
		}
	case engine.EventStopRequested:
		h.Kind = props.ShutdownBegan
	case engine.EventShutdownAbandoned:
		h.Kind, h.Failures = props.ShutdownAbandoned, e.Count
	case engine.EventJobsCancelled:
		h.Kind = props.ExecsCancelled
	case engine.EventJobCancelled:
		h.Kind, h.Job = props.ExecCancelled, e.Job.ID
	case engine.EventCancelChecked:
		h.Kind, h.Asked = props.CancelChecked, e.Jobs
	case engine.EventDrainDeadline:
		h.Kind = props.DrainDeadline
	case engine.EventReleaseAbandoned:
		h.Kind, h.Failures = props.ReleaseAbandoned, e.Count
	case engine.EventTickStarted:
		h.Kind, h.Reason = props.TickStarted, e.Reason
	case engine.EventWaiting:
		h.Kind, h.Failures = props.Waiting, e.Count
	case engine.EventNotified:
		h.Kind, h.Queue = props.Notified, e.Reason
	case engine.EventJobPass:
		h.Kind, h.PassQueues, h.Limit, h.Reserved = props.JobPass, e.Queues, e.Limit, e.Count
	case engine.EventQueueRemoved:
		h.Kind, h.Queue = props.QueueRemoved, e.Reason
	case engine.EventQueueAdded:
		h.Kind, h.Queue = props.QueueAdded, e.Reason
	case engine.EventQueueDrained:
		h.Kind, h.Queue = props.QueueDrained, e.Reason
	default:
		return false
	}
	return true
}

// Owned reads through tx what a worker that shut down must no longer own:
// the jobs running under it (in id order; none for the zero id) and the
// lease holder (zero: no lease). A ShutdownCompleted carries both.
func Owned(ctx context.Context, tx store.Tx, w ulid.ULID) (running []ulid.ULID, holder ulid.ULID, err error) {
	if !w.IsZero() {
		jobs, err := tx.RunningJobs(ctx, w)
		if err != nil {
			return nil, holder, err
		}
		for _, j := range jobs {
			running = append(running, j.ID)
		}
	}
	switch l, err := tx.GetLease(ctx); {
	case err == nil:
		holder = l.WorkerID
	case !errors.Is(err, store.ErrNotFound):
		return running, holder, err
	}
	return running, holder, nil
}
