package props

import (
	"fmt"
	"time"
)

// Queue rate (property 14), decided at the end of each commit that starts
// jobs of a queue with a rate of N starts per period P: the starts of the
// queue with started_at in (t − P, t], t the commit's store time, number
// at most N. Only starts committed since the queue's rate was last set
// (changed in count or period) count: a store admits its starts through
// slots that keep the latest starts across a change, which is stricter,
// but the property judges what any rate's history must show.

// RateWindow holds a queue's starts since its rate was set, as many as can
// still fall in a window.
type RateWindow struct {
	N      int
	Period time.Duration
	starts []time.Time // in commit order
}

// Set starts a new window for a rate of n starts per period (n = 0: none)
// unless the rate is the window's already.
func (w *RateWindow) Set(n int, period time.Duration) {
	if w.N != n || w.Period != period {
		*w = RateWindow{N: n, Period: period}
	}
}

// Start records a start at store time at, if the queue has a rate.
func (w *RateWindow) Start(at time.Time) {
	if w.N > 0 {
		w.starts = append(w.starts, at)
	}
}

// In returns how many of the recorded starts fall in the window of the
// rate's period ending at now, forgetting those that no later window (at
// a store time not before now) can hold.
func (w *RateWindow) In(now time.Time) int {
	from := now.Add(-w.Period)
	kept := w.starts[:0]
	for _, s := range w.starts {
		if s.After(from) {
			kept = append(kept, s)
		}
	}
	w.starts = kept
	return len(kept)
}

// rateChange follows a queues row change into the queue's window.
func (qi *queueIndex) rateChange(name string, after *QueueRow) {
	w := qi.rates[name]
	if w == nil {
		w = &RateWindow{}
		qi.rates[name] = w
	}
	if after == nil {
		w.Set(0, 0)
		return
	}
	w.Set(after.Rate, after.RatePeriod)
}

// checkRate reports a commit at e's time that left more starts of queue
// in the window of its rate than the rate allows. It runs once per queue
// and commit, after every start of the commit was recorded.
func (c *Checker) checkRate(e *Event, queue string, r JobRow) {
	w := c.queues.rates[queue]
	if w == nil || w.N == 0 {
		return
	}
	if n := w.In(e.Time); n > w.N {
		c.report(QueueRate, fmt.Sprintf("job %s of queue %s started at %s: %d starts in the %s ending then, over the queue's rate of %d per %s",
			r.ID, queue, formatTime(e.Time), n, w.Period, w.N, w.Period), withJobs(r))
	}
}
