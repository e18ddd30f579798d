package interleave

// What the gated connections tell the controller. Each runs under ctl.mu.

// send is called before a write reaches the server. The first write of a
// round trip parks here while gating is on.
func (ctl *Controller) send(c *conn, s scan) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if c.phase == idle {
		if c.cut || c.closed {
			return errAbandoned
		}
		c.trip, c.ans, c.tracked = ctl.unschema(s.statements), answer{}, ctl.gating
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
				return errAbandoned
			}
		}
		c.phase = sent
	}
	// Counted before the bytes leave, so that no answer can come first.
	c.waits += s.waits
	return nil
}

// wrote is called after a write. A round trip that asks for no answer
// (the tail of a failed COPY) ends with its write.
func (ctl *Controller) wrote(c *conn, err error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if err != nil {
		ctl.goneLocked(c)
	}
	if c.phase == sent && c.waits == 0 {
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
	case msgErrorResponse:
		if c.victim && rewriteVictimError(body) {
			c.victim = false
		}
		if code := errorField(body, 'C'); code != nil && c.ans.code == "" {
			c.ans.code = string(code)
		}
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
	if ctl.gating && c.pid != 0 {
		ctl.zombies = append(ctl.zombies, int32(c.pid))
	}
	ctl.cond.Broadcast()
	ctl.touchLocked()
}
