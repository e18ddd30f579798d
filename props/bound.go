package props

import (
	"fmt"
	"slices"
	"time"
)

// Property 19, the shutdown bound: a graceful shutdown completes, or is
// given up, within Params.ShutdownBound of its beginning, however slow or
// silent the store is (the runner gives each store call after the stop
// up after a timeout). The time its process was stalled, frozen as a
// whole, does not count. It is checked as every event arrives, so a
// shutdown held up for ever is reported as soon as the history moves past
// its bound.

// shutdownBegan starts the process's graceful shutdown and its clock.
func (c *Checker) shutdownBegan(e *Event) {
	p := c.proc(e)
	p.shuttingDown, p.shutdownAt, p.paused = true, e.Time, 0
	p.cancelJudged, p.releaseJudged, p.releaseGivenUp, p.wait = false, false, false, wait{}
	if c.params.ShutdownBound+c.params.CancelBound+c.params.ReleaseBound > 0 && !slices.Contains(c.shutdowns, p) {
		c.shutdowns = append(c.shutdowns, p)
	}
}

// resumed ends the process's stall; the part of it within a shutdown
// does not count against the shutdown's bound.
func (c *Checker) resumed(e *Event) {
	p := c.proc(e)
	p.paused += p.stallIn(e.Time)
	c.resumeWait(p, e.Time)
	p.stalledAt = time.Time{}
}

// stallIn returns how much of the process's stall in progress, if any,
// falls within its shutdown, up to now.
func (p *procState) stallIn(now time.Time) time.Duration {
	if p.stalledAt.IsZero() || !p.shuttingDown {
		return 0
	}
	from := p.stalledAt
	if from.Before(p.shutdownAt) {
		from = p.shutdownAt
	}
	return now.Sub(from)
}

// checkShutdownBounds reports, once each, the shutdowns that have run
// past the bound by now.
func (c *Checker) checkShutdownBounds(now time.Time) {
	for i := 0; i < len(c.shutdowns); i++ {
		p := c.shutdowns[i]
		if !p.shuttingDown {
			c.shutdowns = slices.Delete(c.shutdowns, i, i+1)
			i--
			continue
		}
		took := now.Sub(p.shutdownAt) - p.paused - p.stallIn(now)
		c.checkDrainBounds(p, took)
		if c.params.ShutdownBound <= 0 || took <= c.params.ShutdownBound {
			continue
		}
		c.report(ShutdownBound, fmt.Sprintf("process %s has been shutting down for %v (not counting its stalls), past the bound %v",
			p.name, took, c.params.ShutdownBound), withEvents(p.openStarts()...))
		c.shutdowns = slices.Delete(c.shutdowns, i, i+1)
		i--
	}
}
