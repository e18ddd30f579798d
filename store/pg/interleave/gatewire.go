package interleave

// What the gated connections tell the controller. Each runs under ctl.mu.

// send is called before a write reaches the server. The first write of a
// round trip parks here while gating is on. hold: the write is a batch
// that commits at its Sync, which is to be held back (conn.held).
func (ctl *Controller) send(c *conn, s scan) (hold bool, err error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if c.phase == idle {
		if c.cut || c.closed {
			return false, errAbandoned
		}
		c.trip, c.ans, c.tracked = ctl.unschema(s.statements), answer{}, ctl.gating
		c.hold = ctl.gating && s.waits == 1 && s.endsInSync && s.executes > 0 && implicit(c.inTx, s.statements)
		if ctl.gating {
			c.phase = parked
			ctl.touchLocked()
			for c.phase == parked && ctl.gating && !c.cut && !c.closed {
				ctl.cond.Wait()
			}
			if c.cut || c.closed {
				// Given up at the gate, or just as it was released: nothing
				// reaches the server either way.
				c.phase = idle
				c.finished = append(c.finished, finishedTrip{statements: c.trip, withdrawn: true})
				c.trip = nil
				ctl.touchLocked()
				return false, errAbandoned
			}
		}
		c.phase = sent
		if c.hold {
			c.hold, c.execs = false, s.executes // counted before the bytes leave, as waits are
			return true, nil
		}
	}
	// Counted before the bytes leave, so that no answer can come first.
	c.waits += s.waits
	return false, nil
}

// wrote is called after a write. A round trip that asks for no answer
// (the tail of a failed COPY) ends with its write.
func (ctl *Controller) wrote(c *conn, err error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if err != nil {
		ctl.goneLocked(c)
	}
	if c.phase == sent && c.waits == 0 && c.execs == 0 {
		ctl.finishLocked(c)
	}
}

// What the reader does with a message from the server.
type verdict int

const (
	pass   verdict = iota // hand it to pgx
	drop                  // the answer is to be lost: pgx never sees it
	cutOff                // the lost answer is complete: fail the connection
)

// answered looks at one whole message from the server, before pgx does.
func (ctl *Controller) answered(c *conn, typ byte, body []byte) verdict {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	v := pass
	if c.lose {
		v = drop
	}
	switch typ {
	case msgCommandComplete:
		c.ans.tags = append(c.ans.tags, cstring(body))
		ctl.executedLocked(c, false)
	case msgEmptyQueryResponse, msgPortalSuspended:
		ctl.executedLocked(c, false)
	case msgErrorResponse:
		if c.victim && rewriteVictimError(body) {
			c.victim = false
		}
		if code := errorField(body, 'C'); code != nil && c.ans.code == "" {
			c.ans.code = string(code)
		}
		ctl.executedLocked(c, true)
	case msgReadyForQuery:
		if len(body) > 0 {
			c.ans.tx = body[0]
		}
		if c.waits > 0 {
			c.waits--
		}
		if c.waits == 0 && c.phase == sent {
			ctl.finishLocked(c)
			if c.lose {
				ctl.goneLocked(c)
				v = cutOff
			}
		}
	}
	return v
}

// executedLocked counts an answer to an Execute of a batch whose Sync is
// held (conn.held). Once all are in, the batch's round trip is done, its
// implicit transaction open, and the Sync parks as a round trip of its
// own. An error ends them all (the server skips the rest until the Sync)
// and leaves nothing to commit: the Sync goes at once, in the same round
// trip, as the client sent it.
func (ctl *Controller) executedLocked(c *conn, failed bool) {
	if c.execs == 0 || c.phase != sent {
		return
	}
	if c.execs--; failed {
		c.execs = 0
		ctl.writeHeldLocked(c)
		return
	}
	if c.execs > 0 {
		return
	}
	c.ans.tx = 'T'
	ctl.finishLocked(c)
	c.phase, c.held, c.trip, c.tracked = parked, true, []string{syncStatement}, true
}

// writeHeldLocked sends the Sync held back for c's parked round trip,
// which is being released; what the server answers ends it as any other.
func (ctl *Controller) writeHeldLocked(c *conn) {
	c.held = false
	c.waits = 1
	if _, err := c.Conn.Write(syncMsg); err != nil {
		ctl.goneLocked(c)
	}
}

// finishLocked ends the current round trip of c; the controller reports it
// when it next settles.
func (ctl *Controller) finishLocked(c *conn) {
	c.phase = idle
	if c.tracked && !c.terminated {
		c.finished = append(c.finished, finishedTrip{statements: c.trip, ans: c.ans})
	}
	if c.ans.tx != 0 {
		c.inTx = c.ans.tx != 'I'
	}
	c.trip, c.ans, c.on, c.waiting, c.victim = nil, answer{}, nil, "", false
	ctl.touchLocked()
}

func (ctl *Controller) deadline(c *conn, set bool) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	c.cut = set
	if set {
		ctl.cond.Broadcast()
	}
}

func (ctl *Controller) closed(c *conn) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	ctl.goneLocked(c)
}

// goneLocked marks c closed. Its server process may still be rolling back
// what it held: while gating, settling waits until the server has ended
// it, so that whether its locks are still held is never timing.
func (ctl *Controller) goneLocked(c *conn) {
	if c.closed {
		return
	}
	c.closed = true
	if c.phase == sent {
		ctl.finishLocked(c)
	}
	if c.phase == parked && c.held {
		// No writer waits at the gate for it: withdrawn here, as a
		// parked write would withdraw its round trip.
		c.finished = append(c.finished, finishedTrip{statements: c.trip, withdrawn: true})
		c.phase, c.held, c.trip = idle, false, nil
	}
	if ctl.gating && c.pid != 0 {
		ctl.zombies = append(ctl.zombies, int32(c.pid))
	}
	ctl.cond.Broadcast()
	ctl.touchLocked()
}
