package props

import "time"

// drainBounds sets the bounds of property 20 for a drain of 10 s.
func drainBounds(b *builder) {
	b.params.CancelBound, b.params.ReleaseBound = 12*time.Second, 20*time.Second
	drainingW2(b)
}

var drainCases = []violationCase{
	{"deadline reached, handlers not cancelled", DrainBound, "had not cancelled its handlers' contexts", func(b *builder) int {
		drainBounds(b)
		b.after(10 * time.Second)
		b.event(DrainDeadline, w2, nil)
		b.after(time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(2)) })
	}},
	{"handler uncancelled past the cancel bound", DrainBound, "is not cancelled", func(b *builder) int {
		drainBounds(b)
		b.after(time.Second)
		b.stall(w2, 5*time.Second) // the stall does not count
		b.after(11*time.Second + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(2)) })
	}},
	{"job not released within the release bound", DrainBound, "still running under", func(b *builder) int {
		drainBounds(b)
		b.after(10 * time.Second)
		b.event(DrainDeadline, w2, nil)
		b.event(ExecsCancelled, w2, nil)
		b.after(10*time.Second + time.Millisecond)
		return atNext(b, func() { b.commit(none, b.enqueue(2)) })
	}},
}

// drainBoundRun keeps property 20: the handler is cancelled at the drain
// deadline, after a stall that does not count, and its job released
// after the grace; the handler, which ignores its context, outlives the
// release bound, but its job no longer runs under the worker.
func drainBoundRun(b *builder) {
	drainBounds(b)
	b.after(time.Second)
	b.stall(w2, 5*time.Second)
	b.after(9 * time.Second)
	b.event(DrainDeadline, w2, nil)
	b.event(ExecsCancelled, w2, nil)
	b.after(time.Second)
	b.commit(w2, b.fail(1, ReleaseReason), b.retry(1, 2, 5*time.Second))
	b.after(20 * time.Second)
	b.event(ShutdownAbandoned, w2, func(e *Event) { e.Failures = 5 })
	runsRetryOnW1(b)
}

// releaseGivenUpRun keeps property 20: the release is given up after its
// tries, so the job may still run under the worker past the bound; the
// shutdown transaction releases it.
func releaseGivenUpRun(b *builder) {
	drainBounds(b)
	b.after(10 * time.Second)
	b.event(DrainDeadline, w2, nil)
	b.event(ExecsCancelled, w2, nil)
	b.after(9 * time.Second)
	b.event(ReleaseAbandoned, w2, func(e *Event) { e.Failures = 5 })
	b.after(2 * time.Second)
	b.commit(w2, b.fail(1, ReleaseReason), b.retry(1, 2, 5*time.Second), b.shutdownWorker(w2))
	b.shutdownDone(w2)
	b.after(5 * time.Second)
	runsRetryOnW1(b)
}
