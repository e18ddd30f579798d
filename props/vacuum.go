package props

import "fmt"

// Property 16, the vacuum duty: a vacuum of the jobs table runs only when
// due. The leader claims it in its duty transaction, under its unexpired
// lease, only once the dead rows that transaction counted reached the
// threshold and the interval has passed on store time since the last
// vacuum any leader claimed, the interval judged at the time the
// transaction read (its store time, which the claim carries); and a
// process starts only a vacuum it claimed.

// vacuumState is what the checker remembers of the vacuum duty.
type vacuumState struct {
	last    *Event          // the latest claim, any worker's
	claimed map[string]bool // processes holding a claim they have not started
}

// vacuumClaimed checks a claim against the duty's rules.
func (c *Checker) vacuumClaimed(e *Event) {
	p := c.params
	switch {
	case c.duty == nil || c.duty.Worker != e.Worker:
		c.report(Vacuum, fmt.Sprintf("worker %s claimed a vacuum outside its leader duties", e.Worker))
	case !c.leaseValid(e.Worker, e.Time):
		c.report(Vacuum, fmt.Sprintf("worker %s claimed a vacuum without holding an unexpired lease", e.Worker), withLease(c.lease))
	}
	switch {
	case p.VacuumDeadRows <= 0:
		c.report(Vacuum, fmt.Sprintf("worker %s claimed a vacuum with the duty off", e.Worker))
	case e.DeadRows < p.VacuumDeadRows:
		c.report(Vacuum, fmt.Sprintf("worker %s claimed a vacuum at %d dead rows, below the threshold %d", e.Worker, e.DeadRows, p.VacuumDeadRows))
	}
	if last := c.vacuum.last; last != nil && e.Time.Sub(last.Time) < p.VacuumInterval {
		c.report(Vacuum, fmt.Sprintf("worker %s claimed a vacuum %v after the one %s claimed at %s, within the interval %v",
			e.Worker, e.Time.Sub(last.Time), last.Worker, formatTime(last.Time), p.VacuumInterval), withEvents(*last))
	}
	claim := *e
	c.vacuum.last = &claim
	if c.vacuum.claimed == nil {
		c.vacuum.claimed = map[string]bool{}
	}
	c.vacuum.claimed[c.procKey(e)] = true
}

// vacuumStarted checks that a process runs only a vacuum it claimed, once.
func (c *Checker) vacuumStarted(e *Event) {
	key := c.procKey(e)
	if !c.vacuum.claimed[key] {
		c.report(Vacuum, fmt.Sprintf("%s started a vacuum it had not claimed (or started it twice)", key))
	}
	delete(c.vacuum.claimed, key)
}

// forgetVacuumClaim drops the claim of a process that stopped before it
// started its vacuum: a new incarnation must claim its own.
func (c *Checker) forgetVacuumClaim(proc string) { delete(c.vacuum.claimed, proc) }
