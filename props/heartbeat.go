package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// Property 40, heartbeats: a heartbeat the store told its worker it
// recorded is in the worker's row (the dead threshold, property 6, is
// judged on the rows, so a store that dropped heartbeats had live
// workers declared dead within every other rule); and a serving worker's
// job pass heartbeats when its tick began Params.HeartbeatBound or more
// after the tick of its last heartbeat (or of its first pass), so that a
// worker that keeps ticking is never declared dead. Neither is judged
// where the history does not hold every heartbeat.

// beats is what property 40 keeps.
type beats struct {
	tickAt map[string]time.Time // each process's tick in progress began then
	beat   map[string]bool      // ... and its pass heartbeated
	// last: each worker's tick of its last heartbeat, or of its first
	// job pass, began then.
	last map[ulid.ULID]time.Time
}

// tickStarted notes that process proc began a tick at t.
func (b *beats) tickStarted(proc string, t time.Time) {
	if b.tickAt == nil {
		b.tickAt, b.beat, b.last = map[string]time.Time{}, map[string]bool{}, map[ulid.ULID]time.Time{}
	}
	b.tickAt[proc], b.beat[proc] = t, false
}

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
	proc := c.procKey(e)
	if at, ok := c.beats.tickAt[proc]; ok {
		c.beats.beat[proc] = true
		c.beats.last[e.Worker] = at
	}
}

// checkHeartbeatDue judges job pass e: it heartbeated if its tick began
// HeartbeatBound or more after the tick of its worker's last heartbeat.
func (c *Checker) checkHeartbeatDue(e *Event) {
	b := &c.beats
	proc := c.procKey(e)
	at, ticking := b.tickAt[proc]
	if c.params.HeartbeatBound <= 0 || c.params.HeartbeatsUnknown || e.Worker.IsZero() || !ticking || b.beat[proc] {
		return
	}
	last, seen := b.last[e.Worker]
	if !seen {
		b.last[e.Worker] = at
		return
	}
	if since := at.Sub(last); since >= c.params.HeartbeatBound {
		c.report(Heartbeats, fmt.Sprintf("worker %s's job pass at %s did not heartbeat: its tick began %v after the tick of its last heartbeat, "+
			"past the heartbeat interval's bound of %v", e.Worker, formatTime(e.Time), since, c.params.HeartbeatBound))
	}
}
