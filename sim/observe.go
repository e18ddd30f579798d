package sim

import (
	"time"

	"github.com/tickwork/tickwork/worker"
)

// observe receives p's core events: they go to the trace and the
// coverage marks, and, translated as a live worker's history log
// translates them (history.Translator), to the history. The simulator's
// store clock is exact, so every history event is stamped now.
func (s *sim) observe(p *proc, e worker.Event) {
	s.noteObserved(p, e)
	if h, ok := p.history.Translate(e); ok {
		h.Process, h.Time = p.name, time.Time{}
		s.record(h)
	}
}

// noteObserved traces an event and sets the marks it reaches.
func (s *sim) noteObserved(p *proc, e worker.Event) {
	switch e.Kind {
	case worker.EventHeartbeat, worker.EventJobStarted, worker.EventRegistered, worker.EventDutiesEnded,
		worker.EventJobFinished, worker.EventStopRequested, worker.EventJobsCancelled:
		// The commit lines, the exec lines and the runner's lines already say it.
		if e.Kind == worker.EventJobStarted && e.Reason != "" {
			s.res.Marks.set(MarkRecovered)
			s.tr.printf(s.now, p.name, "recovered %s: %s", s.names.job(e.Job.ID), e.Reason)
		}
		return
	case worker.EventNotificationIgnored:
		s.res.Marks.set(MarkNotifyIgnoredFull)
		return
	}
	s.traceObserved(p, e)
	switch e.Kind {
	case worker.EventDrainDeadline:
		s.res.Marks.set(MarkDrainDeadline)
	case worker.EventDeclaredDead:
		s.res.Marks.set(MarkReregistered)
	case worker.EventScheduleFired:
		s.count(Schedules)
	case worker.EventJobsDeleted, worker.EventWorkersDeleted:
		s.res.Faults[Retention] += e.Count
	case worker.EventResultFenced:
		s.res.Marks.set(MarkFencedResult)
	}
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
