package props

import "fmt"

// Property 40, heartbeats: a heartbeat the store told its worker it
// recorded is in the worker's row (the dead threshold, property 6, is
// judged on the rows, so a store that dropped heartbeats had live
// workers declared dead within every other rule); and a serving worker's
// job pass heartbeats when its tick began Params.HeartbeatBound or more
// after the tick of its last heartbeat (or of its first pass), so that a
// worker that keeps ticking is never declared dead. Neither is judged
// where the history does not hold every heartbeat.

// heartbeat checks the row of a worker told its heartbeat was recorded,
// and notes the heartbeat.
func (c *Checker) heartbeat(e *Event) {
	if c.params.HeartbeatsUnknown {
		return
	}
	w, known := c.workers[e.Worker]
	if !known || w.LastSeenAt.Before(e.Time) {
		c.report(Heartbeats, fmt.Sprintf("worker %s was told its heartbeat at %s was recorded, but its row says otherwise",
			e.Worker, formatTime(e.Time)), withWorkers(w))
	}
	if p := c.proc(e); !p.tickAt.IsZero() {
		p.tickBeat = true
		c.beats.done(e.Worker, p.tickAt)
	}
}

// checkHeartbeatDue judges job pass e: it heartbeated if its tick began
// HeartbeatBound or more after the tick of its worker's last heartbeat.
func (c *Checker) checkHeartbeatDue(e *Event) {
	if c.params.HeartbeatBound <= 0 || c.params.HeartbeatsUnknown || e.Worker.IsZero() {
		return
	}
	p := c.proc(e)
	at := p.tickAt
	if at.IsZero() || p.tickBeat {
		return
	}
	if since, owed := c.beats.overdue(e.Worker, at, c.params.HeartbeatBound); owed {
		c.report(Heartbeats, fmt.Sprintf("worker %s's job pass at %s did not heartbeat: its tick began %v after the tick of its last heartbeat, "+
			"past the heartbeat interval's bound of %v", e.Worker, formatTime(e.Time), since, c.params.HeartbeatBound))
	}
}
