package sim

import (
	"time"

	"github.com/tickwork/tickwork/worker/engine"
)

// procObserver hands p's core events to s.observe. It is an Observer of
// its own, not an ObserverFunc, because an Event is over a kilobyte and
// ObserverFunc copies it once more to call its function: for every event.
type procObserver struct {
	s *sim
	p *proc
}

// Observe calls s.observe.
func (o *procObserver) Observe(e engine.Event) { o.s.observe(o.p, &e) }

// ObserveRef calls s.observe on the core's own copy of e: a core hands a
// RefObserver the events of a transaction without copying them again.
func (o *procObserver) ObserveRef(e *engine.Event) { o.s.observe(o.p, e) }

// observe receives p's core events: they go to the trace and the
// coverage marks, and, translated as a live worker's history log
// translates them (history.Translator), to the history. The simulator's
// store clock is exact, so every history event is stamped now; but for
// an interleaved run, whose transactions span virtual time: an event a
// transaction stamped keeps that transaction's store time, as its commit.
func (s *sim) observe(p *proc, e *engine.Event) {
	s.noteObserved(p, e)
	h := &s.observed
	if p.history.Translate(e, h) {
		h.Process = p.name
		if !s.interleaving() {
			h.Time = time.Time{}
		}
		s.record(h)
	}
}

// noteObserved traces an event and sets the marks it reaches.
func (s *sim) noteObserved(p *proc, e *engine.Event) {
	switch e.Kind {
	case engine.EventHeartbeat, engine.EventJobStarted, engine.EventRegistered, engine.EventDutiesEnded,
		engine.EventJobFinished, engine.EventStopRequested, engine.EventJobsCancelled, engine.EventJobCancelled,
		engine.EventVacuumStarted, engine.EventVacuumEnded, engine.EventTickStarted, engine.EventWaiting, engine.EventNotified,
		engine.EventJobPass:
		// The commit lines, the exec lines and the runner's lines already say it.
		if e.Kind == engine.EventJobStarted && e.Reason != "" {
			s.res.Marks.set(MarkRecovered)
			s.tr.printf(s.now, p.name, "recovered %s: %s", s.names.job(e.Job.ID), e.Reason)
		}
		return
	case engine.EventNotificationIgnored:
		s.res.Marks.set(MarkNotifyIgnoredFull)
		return
	case engine.EventCancelChecked:
		if e.Count > 0 { // the checks that find nothing, most of them, would drown the trace
			s.tr.printf(s.now, p.name, "%s as %s: %d of %s cancelled", e.Kind, s.names.worker(e.Worker), e.Count, s.names.jobList(e.Jobs))
		}
		return
	}
	s.traceObserved(p, e)
	switch e.Kind {
	case engine.EventLeaseAcquired, engine.EventLeaseRenewed:
		s.checkLeaseReport(e)
	case engine.EventDrainDeadline:
		s.res.Marks.set(MarkDrainDeadline)
	case engine.EventDeclaredDead:
		s.res.Marks.set(MarkReregistered)
	case engine.EventScheduleFired:
		s.count(Schedules)
	case engine.EventJobsDeleted:
		s.res.Faults[Retention] += e.Count
		if e.Count == s.cfg.CleanupBatch {
			s.res.Marks.set(MarkRetentionBatchFull)
		}
	case engine.EventWorkersDeleted:
		s.res.Faults[Retention] += e.Count
	case engine.EventResultFenced:
		s.res.Marks.set(MarkFencedResult)
	case engine.EventScheduleSkipped:
		s.res.Marks.set(MarkScheduleSkipped)
	}
}

func (s *sim) traceObserved(p *proc, e *engine.Event) {
	if s.tr.quiet {
		return
	}
	who := s.names.worker(e.Worker)
	switch e.Kind {
	case engine.EventLeaseAcquired, engine.EventLeaseRenewed:
		b := append(append(append(s.tr.begin(s.now, p.name), e.Kind.String()...), " as "...), who...)
		s.tr.add(appendTime(append(b, " until "...), e.LeaseExpires))
	case engine.EventRetryScheduled, engine.EventJobSnoozed:
		s.tr.printf(s.now, p.name, "%s %s -> %s delay %v", e.Kind, s.names.job(e.Job.ID), s.names.job(e.Next.ID), e.Delay)
	case engine.EventScheduleSkipped:
		s.tr.printf(s.now, p.name, "%s %s for %s: %s holds its key", e.Kind, e.Schedule, stamp(e.CronTime), s.names.job(e.Job.ID))
	case engine.EventScheduleFired:
		s.tr.printf(s.now, p.name, "%s %s %s for %s", e.Kind, e.Schedule, s.names.job(e.Job.ID), stamp(e.CronTime))
	case engine.EventStoreError:
		s.tr.printf(s.now, p.name, "%s in %s: %s", e.Kind, e.Reason, s.errText(e.Err))
	case engine.EventDeadWorkersShutDown:
		ws := make([]string, len(e.Workers))
		for i, w := range e.Workers {
			ws[i] = s.names.worker(w)
		}
		s.tr.printf(s.now, p.name, "%s %v", e.Kind, ws)
	case engine.EventJobsPromoted, engine.EventJobsDeleted, engine.EventWorkersDeleted:
		s.tr.printf(s.now, p.name, "%s %d", e.Kind, e.Count)
	case engine.EventVacuumClaimed:
		s.tr.printf(s.now, p.name, "%s as %s at %d dead rows", e.Kind, who, e.Count)
	default:
		if e.Kind == engine.EventResultRecorded || e.Kind == engine.EventResultFenced || e.Kind == engine.EventRetryAbandoned {
			b := append(append(append(s.tr.begin(s.now, p.name), e.Kind.String()...), " as "...), who...)
			b = append(s.names.appendJob(append(b, " job "...), e.Job.ID), ' ')
			b = append(append(b, e.Decision.String()...), ' ')
			s.tr.add(append(b, s.names.replaceIDs(e.Reason)...))
			return
		}
		if !e.Job.ID.IsZero() {
			s.tr.printf(s.now, p.name, "%s as %s job %s %s", e.Kind, who, s.names.job(e.Job.ID), s.names.replaceIDs(e.Reason))
			return
		}
		s.tr.printf(s.now, p.name, "%s as %s", e.Kind, who)
	}
}
