package sim

import (
	"time"

	"github.com/tickwork/tickwork/worker/engine"
)

// eventKind says what an event does when it comes due.
type eventKind uint8

const (
	evTimer           eventKind = iota // a runner timer: timer, gen its generation
	evResume                           // a core call parked on store latency goes on
	evJobDone                          // gen: execution id
	evJobTimeout                       // gen: execution id; the handler's context is cancelled
	evNotify                           // note reaches the worker
	evStart                            // the process starts (first time or after a crash or shutdown)
	evCrash                            // fault timer: the process dies
	evStall                            // fault timer: the process pauses
	evStallEnd                         // the pause ends
	evJump                             // fault timer: the local clock jumps
	evShutdown                         // fault timer: graceful shutdown begins (maybe at the next job start)
	evShutdownNow                      // graceful shutdown begins
	evBurst                            // fault timer: a burst of enqueues
	evCancel                           // fault timer: an operator cancels a job
	evQueueControl                     // fault timer: an operator pauses, resumes or limits a queue
	evVacuumDone                       // the process's vacuum returns
	evOutage                           // an outage window opens (for the trace)
	evQuiesce                          // chaos ends
	evSettleCheck                      // quiescence: is everything settled?
	evEnd                              // the quiescence bound
	evQueueRate                        // fault timer: an operator sets or removes a queue's rate
	evTrip                             // interleaving: a parked round trip goes (conn, gen)
	evSignal                           // a signal reaches the process (gen: its index in signalNames)
	evAbandon                          // the runner is told to give its drain up
	evLeaderStop                       // interleaving: the lease holder is asked to stop
	evKeyLimit                         // fault timer: an operator sets or removes a queue's per-key limit
	evSequenceRelease                  // fault timer: an operator releases a halted sequence
	evDelete                           // fault timer: an operator deletes a job
	evDeadLetter                       // fault timer: an operator sets or clears a dead-letter queue, or redrives one
	evPauseAll                         // fault timer: an operator pauses or resumes every queue
	evQueueChurn                       // fault timer: the process removes a queue or adds one back
	evQueuesRestored                   // quiescence: the process adds back every queue it removed
	evBulk                             // fault timer: an operator runs a bulk action
	evHistory                          // fault timer: an operator sets a queue's history
)

// procEvent reports whether events of kind k belong to one process, and so
// wait while it is busy in the store or stalled.
func procEvent(k eventKind) bool {
	switch k {
	case evBurst, evCancel, evDelete, evBulk, evQueueControl, evQueueRate, evKeyLimit, evSequenceRelease, evDeadLetter, evHistory, evPauseAll, evOutage, evQuiesce, evSettleCheck, evEnd, evTrip, evSignal, evLeaderStop:
		return false
	}
	return true
}

// incarnationBound reports whether events of kind k die with the process
// incarnation that scheduled them (fault timers outlive crashes).
func incarnationBound(k eventKind) bool {
	switch k {
	case evCrash, evStall, evJump, evShutdown, evStart, evQueueChurn:
		return false
	}
	return procEvent(k)
}

func (s *sim) dispatch(e *event) {
	if procEvent(e.kind) {
		p := s.procs[e.w]
		if incarnationBound(e.kind) && e.inc != p.inc {
			s.recycle(e)
			return // scheduled by an incarnation that died
		}
		if e.kind == evResume {
			s.resumeCall(p) // the one event a busy process takes
			return
		}
		if p.busy || (p.stalledUntil > s.now && e.kind != evStallEnd) {
			p.deferred = append(p.deferred, e)
			return
		}
		s.dispatchProc(p, e)
		s.recycle(e)
		return
	}
	switch e.kind {
	case evBurst:
		s.burst()
	case evCancel:
		s.cancelOne()
	case evDelete:
		s.deleteOne()
	case evBulk:
		s.bulkAction()
	case evQueueControl:
		s.queueControl()
	case evQueueRate:
		s.queueRate()
	case evSequenceRelease:
		s.releaseSequence()
	case evKeyLimit:
		s.keyLimit(e.gen == firstKeyLimit)
	case evDeadLetter:
		s.deadLetter(e.gen == firstDeadLetter)
	case evHistory:
		s.queueHistory(e.gen == firstHistory)
	case evPauseAll:
		s.pauseAll()
	case evOutage:
		s.count(Outage)
		s.tr.printf(s.now, "db", "outage for %v", time.Duration(e.gen))
	case evQuiesce:
		s.quiesce()
	case evSettleCheck:
		s.settleCheck()
	case evTrip:
		s.trip(e)
	case evSignal:
		s.signal(e)
	case evLeaderStop:
		s.leaderStop()
	case evEnd:
		s.tr.printf(s.now, "sim", "quiescence bound reached")
		s.finish()
		s.stopped = true
	}
}

func (s *sim) dispatchProc(p *proc, e *event) {
	switch e.kind {
	case evTimer:
		s.timerFired(p, e)
	case evJobDone:
		s.jobDone(p, e.gen)
	case evJobTimeout:
		s.jobTimeout(p, e.gen)
	case evNotify:
		s.step(p, engine.Input{Kind: engine.InNotification, Note: e.note})
	case evStart:
		s.startProc(p, e.inc)
	case evCrash:
		s.crash(p)
	case evStall:
		s.stall(p)
	case evStallEnd:
		s.stallEnd(p)
	case evJump:
		s.jump(p)
	case evShutdown:
		s.shutdownTimer(p)
	case evShutdownNow:
		s.beginShutdown(p)
	case evVacuumDone:
		s.vacuumDone(p)
	case evAbandon:
		s.step(p, engine.Input{Kind: engine.InAbandon})
	case evQueueChurn:
		s.queueChurn(p)
	case evQueuesRestored:
		s.restoreQueues(p)
	}
}

// release re-queues the events that waited while p was busy or stalled, at
// now and in their original order.
func (s *sim) release(p *proc) {
	if p.busy || p.stalledUntil > s.now || len(p.deferred) == 0 {
		return
	}
	waiting := p.deferred
	p.deferred = nil
	for _, e := range waiting {
		s.at(s.now, e)
	}
}
