package sim

import (
	"iter"
	"time"
)

// Each process runs its core calls (Tick, Release, Shutdown) on a
// coroutine of its own (iter.Pull), so that a call blocked on store latency
// can park until a later virtual time while the other processes go on, and
// resume exactly where it stopped. Coroutines hand control back and forth
// explicitly and never run in parallel: the simulation stays one logical
// thread and every switch happens at a point the event queue decides.

// finished is what the coroutine yields when a call finished rather than
// parked until a time.
const finished = time.Duration(-1)

// call runs body, a core call of p and what follows it, on p's coroutine.
// Inside a call already (a shutdown step that leads to another), it runs
// body directly.
func (s *sim) call(p *proc, body func()) {
	if p.inCall {
		body()
		return
	}
	if p.next == nil {
		p.next, p.stop = iter.Pull(func(yield func(time.Duration) bool) {
			growStack()
			p.yield = yield
			for {
				p.inCall = true
				p.body()
				p.inCall = false
				if !yield(finished) {
					return
				}
			}
		})
	}
	p.body = body
	s.resumeCall(p)
}

// growStack grows the calling goroutine's stack to about what a core call
// needs, in one copy of a stack still nearly empty: a coroutine starts
// with the smallest stack, and the calls would otherwise double it four
// times, copying the frames of a call in progress each time.
//
//go:noinline
func growStack() byte {
	var frame [24 << 10]byte
	return lastByte(frame[:]) // a call the compiler cannot see through keeps the frame
}

//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }

// resumeCall runs p's coroutine until its call finishes or parks; a parked
// call is resumed by an evResume event at the time it asked for.
func (s *sim) resumeCall(p *proc) {
	p.busy = true
	until, ok := p.next()
	if ok && until == waitTx {
		p.waitingTx = true // resumed when a settle finds its transaction returned
		return
	}
	if ok && until != finished {
		s.at(until, &event{kind: evResume, w: p.idx, inc: p.inc})
		return
	}
	p.busy = false
	p.body = nil
	if p.stopAsked {
		p.stopAsked = false
		s.beginShutdown(p)
	}
	s.release(p)
}

// park suspends the running call of p for d of true time. It returns false
// when the run ended meanwhile: the caller must give up.
func (s *sim) park(p *proc, d time.Duration) bool {
	if !p.inCall {
		return true
	}
	return p.yield((s.now + d).Truncate(time.Microsecond))
}

// stopCoroutines ends every process's coroutine; a parked call sees its
// store call fail and unwinds. The run is over: a panic while unwinding
// (an invariant a planted bug broke after the violation that ended the
// run) is not part of it.
func (s *sim) stopCoroutines() {
	for _, p := range s.procs {
		if p.stop != nil {
			stop := p.stop
			p.next, p.stop = nil, nil
			func() {
				defer func() { _ = recover() }()
				stop()
			}()
		}
	}
}
