package worker

import "sync"

// executors runs the runner's jobs on goroutines it keeps for the whole
// run. A goroutine per job grew a fresh stack on every job, through the
// handler, the middleware and the tracer: with short jobs that growth was
// a fifth of the runner's CPU, and the next tick waits for the jobs. A
// kept goroutine has grown its stack once.
//
// There are never more of them than twice the jobs that may run at once:
// one is started only when none is waiting for work, and one that is not
// waiting is running a job or has just sent its result.
type executors struct {
	work    chan func() // unbuffered: a send succeeds only to a waiting goroutine
	wg      sync.WaitGroup
	started int // goroutines started so far; run is called from one goroutine
}

func newExecutors() *executors { return &executors{work: make(chan func())} }

// run runs fn on a waiting goroutine, or on a new one when none waits.
func (e *executors) run(fn func()) {
	select {
	case e.work <- fn:
	default:
		e.wg.Add(1)
		e.started++
		go e.serve(fn)
	}
}

// serve runs fn, then whatever work comes, until close.
func (e *executors) serve(fn func()) {
	defer e.wg.Done()
	for ; fn != nil; fn = <-e.work {
		fn()
	}
}

// close ends the goroutines once the work they run has returned, and
// waits for them. Nothing may be run after it.
func (e *executors) close() {
	close(e.work)
	e.wg.Wait()
}
