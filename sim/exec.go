package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// execution is one modelled handler run. Its outcome and duration are
// drawn from a source named by the job row's id, so they do not depend on
// which worker runs it or on anything else the seed drew.
type execution struct {
	id  uint64
	row store.Job // the row as reserved, which the worker runs the attempt on (handler.go)

	decision     worker.Decision
	reason       string
	snooze       time.Duration   // a Snooze decision's wait
	endAt        time.Duration   // true time at which it returns on its own
	ctx          context.Context // its context, from the runner's engine.Contexts
	ignoreCancel bool
	// hangs: ignoring cancellation, it hangs once its process's drain
	// deadline cancels it (hung), until the process exits: a handler
	// stuck in a call without a deadline, which only the release at
	// the end of the grace frees its job from.
	hangs, hung bool
	sealed      json.RawMessage // the job's payload if sealed (encryption.go)
	cancelled   bool
	endQueued   bool
	panics      bool // it panics as it returns
	// timedOutFirst: its handler timeout came while it ran, before its
	// context ended otherwise, so the deadline ended the context it ran
	// under; doneAtStart: that context had ended before it started.
	timedOutFirst, doneAtStart bool
	playing                    bool // the worker runs its attempt past the handler's start (handler.go)
}

// outcome is how a modelled handler behaves.
type outcome int

const (
	succeeds outcome = iota
	asksRetry
	fails
	panics
	overruns
	snoozes
)

var outcomeKinds = [...]FaultKind{asksRetry: HandlerRetry, fails: HandlerFail, panics: HandlerPanic, overruns: HandlerTimeout, snoozes: HandlerSnooze}

// drawOutcome picks an outcome: success has weight 4, each enabled handler
// fault its rate.
func (s *sim) drawOutcome(r interface{ Float64() float64 }) outcome {
	total := 4.0
	for o := asksRetry; o <= snoozes; o++ {
		if s.on(outcomeKinds[o]) {
			total += s.rate(outcomeKinds[o])
		}
	}
	x := float64(r.Float64() * total)
	if x < 4 {
		return succeeds
	}
	x -= 4
	for o := asksRetry; o <= snoozes; o++ {
		if !s.on(outcomeKinds[o]) {
			continue
		}
		if x < s.rate(outcomeKinds[o]) {
			return o
		}
		x -= s.rate(outcomeKinds[o])
	}
	return succeeds
}

// jobLabel is "job/" and the job's id, the label of its handler's source,
// built without an allocation (it does not outlive the Child call).
func jobLabel(id ulid.ULID) string {
	var b [4 + ulid.EncodedSize]byte
	copy(b[:], "job/")
	_ = id.MarshalTextTo(b[4:]) // fails only for a short buffer
	return string(b[:])
}

// startExec starts the handler of a reserved job on p.
func (s *sim) startExec(p *proc, j store.Job) {
	r := &s.execRng
	s.master.ChildInto(r, jobLabel(j.ID))
	s.execSeq++
	ex := &execution{id: s.execSeq, row: j, ctx: p.ctxs.Start(j.ID)}
	ex.doneAtStart = p.cancelled || ex.ctx.Err() != nil // p.cancelled: cancelled as it starts (below)
	o := s.drawOutcome(r)
	run := r.DurationBetween(time.Millisecond, s.sc.JobMax.D())
	switch o {
	case succeeds:
		ex.decision = worker.Succeed
	case asksRetry:
		ex.decision, ex.reason = worker.Retry, "handler asked for a retry"
	case fails:
		ex.decision, ex.reason = worker.Fail, "handler failed"
	case panics:
		ex.decision, ex.reason, ex.panics = worker.Retry, props.PanicReason+"simulated", true
	case overruns:
		run += s.sc.JobTimeout.D()
		ex.decision, ex.reason = worker.Retry, "handler returned after its timeout"
	case snoozes:
		ex.snooze = r.DurationBetween(0, s.sc.Policy.SnoozeMax.D()).Truncate(time.Millisecond)
		ex.decision, ex.reason = worker.Snoozed, fmt.Sprintf("snoozed for %v", ex.snooze)
	}
	if o != succeeds {
		s.count(outcomeKinds[o])
	}
	s.openJob(p, &j, ex)
	ex.ignoreCancel = s.on(IgnoreCancel) && r.Chance(s.rate(IgnoreCancel))
	ex.hangs = ex.ignoreCancel && r.Chance(0.5) // r's last draw: the others stay as they were
	ex.endAt = (s.now + p.clock.trueDelay(run)).Truncate(time.Microsecond)
	p.execs = append(p.execs, ex)
	s.traceExec(p, &j, ex, run)
	if p.shutdownDue {
		defer s.after(0, &event{kind: evShutdownNow, w: p.idx, inc: p.inc})
	}
	if p.cancelled { // recovered after the drain deadline: its context is done
		defer s.cancelAll(p)
	}
	if run < s.sc.JobTimeout.D() {
		ex.endQueued = true
		s.at(ex.endAt, &event{kind: evJobDone, w: p.idx, inc: p.inc, gen: ex.id})
	} else {
		s.after(p.clock.trueDelay(s.sc.JobTimeout.D()), &event{kind: evJobTimeout, w: p.idx, inc: p.inc, gen: ex.id})
	}
}

func (p *proc) exec(id uint64) (int, *execution) {
	for i, ex := range p.execs {
		if ex.id == id {
			return i, ex
		}
	}
	return -1, nil
}

// jobTimeout cancels a handler's context at its timeout.
func (s *sim) jobTimeout(p *proc, id uint64) {
	if _, ex := p.exec(id); ex != nil {
		ex.timedOutFirst = ex.ctx.Err() == nil
		if !ex.timedOutFirst {
			s.res.Marks.set(MarkTimeoutAfterEnd)
		}
		s.cancelExec(p, ex, "context deadline exceeded")
	}
}

// cancelExec cancels ex's context: it returns soon with a retry, or, if it
// ignores cancellation, whenever it was going to.
func (s *sim) cancelExec(p *proc, ex *execution, why string) {
	if ex.cancelled {
		return
	}
	ex.cancelled = true
	if ex.ignoreCancel {
		s.count(IgnoreCancel)
		s.tr.printf(s.now, p.name, "exec %s ignores cancellation (%s)", s.names.job(ex.row.ID), why)
		if ex.hangs && p.draining && why == drainCancel {
			ex.hung = true
			s.res.Marks.set(MarkHandlerHung)
			s.tr.printf(s.now, p.name, "exec %s hangs until its process exits", s.names.job(ex.row.ID))
			return
		}
		if !ex.endQueued {
			ex.endQueued = true
			s.at(ex.endAt, &event{kind: evJobDone, w: p.idx, inc: p.inc, gen: ex.id})
		}
		return
	}
	ex.decision, ex.reason, ex.snooze = worker.Retry, why, 0
	ex.endQueued = true
	s.after(p.clock.trueDelay(time.Millisecond), &event{kind: evJobDone, w: p.idx, inc: p.inc, gen: ex.id})
}

// jobDone: the handler returned; the runner policy decides when its
// result is recorded.
func (s *sim) jobDone(p *proc, id uint64) {
	i, ex := p.exec(id)
	if ex == nil || ex.hung {
		return
	}
	p.execs = append(p.execs[:i], p.execs[i+1:]...)
	res := s.finishExec(p, ex)
	p.ctxs.Finished(ex.row.ID)
	s.tr.printf(s.now, p.name, "exec %s returns %s %s", s.names.job(ex.row.ID), res.Decision, res.Reason)
	s.step(p, engine.Input{Kind: engine.InJobFinished, Result: res})
}

// traceExec adds the line of an execution's start, built without fmt: one
// comes with nearly every job.
func (s *sim) traceExec(p *proc, j *store.Job, ex *execution, run time.Duration) {
	if s.tr.quiet {
		return
	}
	b := s.names.appendJob(append(s.tr.begin(s.now, p.name), "exec "...), j.ID)
	b = strconv.AppendInt(append(b, " attempt "...), int64(j.Attempt), 10)
	b = append(append(append(b, " as "...), s.names.worker(j.StartedBy)...), ": "...)
	b = append(append(append(b, ex.decision.String()...), " after "...), run.String()...)
	s.tr.add(b)
}
