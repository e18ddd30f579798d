package engine

import (
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"
)

// The core and the runner policy assert their invariants after every call
// and step (TigerBeetle's "assert where the state lives"): a broken one is
// a bug in tickwork, never a condition to recover from, so it panics with
// the state that broke it. The simulator turns the panic into a failure
// with its replay command.

// checkInvariants panics if the core's state contradicts itself after
// the call named after.
func (c *Core) checkInvariants(after string) { c.check(after, true) }

// checkStepInvariants is checkInvariants after a runner step, without the
// check that no job is both executing and waiting to be recorded, which
// reads every pending result: run after each of a tick's thousand results,
// it cost more than the job path's own work at 1,000 jobs in flight. A
// step moves a job from executing to pending (finished) and never back,
// and the calls, which add to executing, still check it.
func (c *Core) checkStepInvariants(after string) { c.check(after, false) }

func (c *Core) check(after string, pendingApart bool) {
	var broken []string
	if pendingApart {
		for _, p := range c.pending {
			if _, ok := c.executing[p.JobID]; ok {
				broken = append(broken, fmt.Sprintf("job %s is both executing and waiting to be recorded", p.JobID))
			}
		}
	}
	if c.leader && c.id == (ulid.ULID{}) {
		broken = append(broken, "the core believes it leads with no worker id")
	}
	if c.dutiesDue && !c.leader {
		broken = append(broken, "duties are due but the core does not lead")
	}
	if n := len(c.executing); n > c.cfg.MaxConcurrent {
		broken = append(broken, fmt.Sprintf("%d jobs executing, more than MaxConcurrent %d", n, c.cfg.MaxConcurrent))
	}
	for id := range c.stopped {
		if _, ok := c.executing[id]; !ok {
			broken = append(broken, fmt.Sprintf("job %s counts as cancelled but is not executing", id))
		}
	}
	if c.vacuum != vacuumIdle {
		if _, ok := c.vacuumer(); !ok {
			broken = append(broken, "a vacuum is claimed or running with the duty off")
		}
	}
	if c.closed && (len(c.executing) > 0 || c.leader) {
		broken = append(broken, "shut down while still executing jobs or leading")
	}
	if len(broken) > 0 {
		panic(fmt.Sprintf("worker: invariant broken after %s: %s (worker %s, executing %d, pending %d, leader %v, shutting down %v, closed %v)",
			after, strings.Join(broken, "; "), c.id, len(c.executing), len(c.pending), c.leader, c.shuttingDown, c.closed))
	}
}

// checkInvariants panics if the policy's state contradicts itself or the
// core's after a step that returned acts.
func (p *Policy) checkInvariants(in Input, acts []Action) {
	var broken []string
	if p.lingering && (p.phase != serving || len(p.core.executing) == 0) {
		broken = append(broken, "lingering for results while not serving or with no job running")
	}
	if p.phase != serving && !p.core.shuttingDown {
		broken = append(broken, "shutting down while the core still reserves")
	}
	for i, a := range acts {
		if a.Kind == ActCall && i != len(acts)-1 {
			broken = append(broken, "a store call is not the step's last action")
		}
		for _, id := range a.JobIDs {
			if !p.core.cancelWanted(id) {
				broken = append(broken, fmt.Sprintf("cancelling job %s, which is not executing or already cancelled", id))
			}
		}
	}
	if calls := len(acts) > 0 && acts[len(acts)-1].Kind == ActCall; calls != p.calling {
		broken = append(broken, fmt.Sprintf("a store call returned %v but the policy believes one is out: %v", calls, p.calling))
	}
	if p.phase == exited && (len(acts) == 0 || acts[len(acts)-1].Kind != ActExit) {
		broken = append(broken, "exited without an exit action")
	}
	if len(broken) > 0 {
		panic(fmt.Sprintf("worker: runner policy invariant broken after input %d: %s (phase %d, calling %v, lingering %v, backing off %v, executing %d)",
			in.Kind, strings.Join(broken, "; "), p.phase, p.calling, p.lingering, p.backingOff, len(p.core.executing)))
	}
}
