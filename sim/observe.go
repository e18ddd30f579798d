package sim

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/worker"
)

// observe receives p's core events: they go to the trace, and the ones the
// properties judge go to the history.
func (s *sim) observe(p *proc, e worker.Event) {
	switch e.Kind {
	case worker.EventHeartbeat, worker.EventJobStarted, worker.EventRegistered:
		// The commit lines and the exec lines already say it.
		if e.Kind == worker.EventJobStarted && e.Reason != "" {
			s.res.Marks.set(MarkRecovered)
			s.tr.printf(s.now, p.name, "recovered %s: %s", s.names.job(e.Job.ID), e.Reason)
		}
		return
	}
	if e.Kind == worker.EventNotificationIgnored {
		s.res.Marks.set(MarkNotifyIgnoredFull)
		return
	}
	s.traceObserved(p, e)
	switch e.Kind {
	case worker.EventStoreError:
		if e.Reason == "shutdown" {
			p.shutdownFailures++
		}
	case worker.EventDrainDeadline:
		s.res.Marks.set(MarkDrainDeadline)
	case worker.EventLeaseAcquired, worker.EventLeaseRenewed:
		p.leaseUntil = e.LeaseExpires
	case worker.EventLeaseLost, worker.EventLeaseReleased:
		p.leaseUntil = time.Time{}
	case worker.EventDeclaredDead:
		p.leaseUntil = time.Time{}
		s.res.Marks.set(MarkReregistered)
		s.record(props.Event{Kind: props.DeclaredDead, Process: p.name, Worker: e.Worker})
	case worker.EventDutiesStarted:
		p.dutyWorker = e.Worker
		s.record(props.Event{Kind: props.DutiesStarted, Time: e.StoreTime, Process: p.name, Worker: e.Worker, LeaseExpires: p.leaseUntil})
	case worker.EventScheduleFired:
		s.count(Schedules)
		s.record(props.Event{Kind: props.ScheduleFired, Time: e.StoreTime, Process: p.name, Worker: e.Worker,
			Job: e.Job.ID, Schedule: e.Schedule, CronTime: e.CronTime})
	case worker.EventJobsDeleted, worker.EventWorkersDeleted:
		s.res.Faults[Retention] += e.Count
	case worker.EventResultFenced:
		s.res.Marks.set(MarkFencedResult)
		s.record(props.Event{Kind: props.ResultFenced, Time: e.StoreTime, Process: p.name, Worker: e.Worker, Job: e.Job.ID})
	}
}

// endDuties closes the leader duties a core call ran: they were one
// transaction, over by the time the call returns.
func (s *sim) endDuties(p *proc) {
	if p.dutyWorker.IsZero() {
		return
	}
	s.record(props.Event{Kind: props.DutiesEnded, Process: p.name, Worker: p.dutyWorker})
	p.dutyWorker = ulid.ULID{}
}

func (s *sim) traceObserved(p *proc, e worker.Event) {
	who := s.names.worker(e.Worker)
	switch e.Kind {
	case worker.EventLeaseAcquired, worker.EventLeaseRenewed:
		s.tr.printf(s.now, p.name, "%s as %s until %s", e.Kind, who, stamp(e.LeaseExpires))
	case worker.EventRetryScheduled:
		s.tr.printf(s.now, p.name, "%s %s -> %s delay %v", e.Kind, s.names.job(e.Job.ID), s.names.job(e.Next.ID), e.Delay)
	case worker.EventScheduleFired:
		s.tr.printf(s.now, p.name, "%s %s %s for %s", e.Kind, e.Schedule, s.names.job(e.Job.ID), stamp(e.CronTime))
	case worker.EventStoreError:
		s.tr.printf(s.now, p.name, "%s in %s: %s", e.Kind, e.Reason, s.errText(e.Err))
	case worker.EventDeadWorkersShutDown:
		ws := make([]string, len(e.Workers))
		for i, w := range e.Workers {
			ws[i] = s.names.worker(w)
		}
		s.tr.printf(s.now, p.name, "%s %v", e.Kind, ws)
	case worker.EventJobsPromoted, worker.EventJobsDeleted, worker.EventWorkersDeleted:
		s.tr.printf(s.now, p.name, "%s %d", e.Kind, e.Count)
	default:
		if e.Kind == worker.EventResultRecorded || e.Kind == worker.EventResultFenced || e.Kind == worker.EventRetryAbandoned {
			s.tr.printf(s.now, p.name, "%s as %s job %s %s %s", e.Kind, who, s.names.job(e.Job.ID), e.Decision, s.names.replaceIDs(e.Reason))
			return
		}
		if !e.Job.ID.IsZero() {
			s.tr.printf(s.now, p.name, "%s as %s job %s %s", e.Kind, who, s.names.job(e.Job.ID), s.names.replaceIDs(e.Reason))
			return
		}
		s.tr.printf(s.now, p.name, "%s as %s", e.Kind, who)
	}
}
