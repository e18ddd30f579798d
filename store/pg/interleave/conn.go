package interleave

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// phase is where a gated connection's current round trip is. It is guarded
// by the controller's mutex.
type phase int

const (
	idle   phase = iota // the client has the turn: nothing sent, or every answer in
	parked              // a round trip waits at the gate
	sent                // released; answers still to come
)

// conn wraps the net.Conn of one pooled connection. Until the controller
// adopts it (after authentication) it passes everything through; then the
// first write of each round trip parks until the controller releases it,
// and reads are cut at message boundaries so that the answers can be
// followed (and a deadlock victim's error rewritten) whole.
type conn struct {
	net.Conn
	ctl   *Controller
	label string
	armed atomic.Bool

	// Guarded by ctl.mu.
	ord        int    // order of adoption among the label's connections
	id         string // label#ord, once adopted
	pid        uint32
	phase      phase
	waits      int  // ReadyForQuerys still to come
	cut        bool // a deadline is set: the pending write gives up
	closed     bool
	victim     bool     // cancelled by the controller; its error becomes a deadlock
	inTx       bool     // its last answer left a transaction open (or failed)
	lose       bool     // the answers of the released round trip are to be lost
	terminated bool     // its server process was ended: nothing more is reported
	trip       []string // statements of the current round trip
	tracked    bool     // it started while gating was on: it is reported
	ans        answer
	finished   []finishedTrip // answered, not yet reported by the controller
	on         []string       // what it was last reported waiting on
	waiting    string         // and the statement that waited
	// A pipelined batch that commits at its Sync (implicit) is sent
	// without it: execs counts its Executes still unanswered, and once
	// none is, the Sync parks as a round trip of its own (held) that the
	// controller writes when it releases it. Sent together, a batch that
	// waited on a lock would commit in the step that committed the
	// holder, and no reading back could tell their commits apart.
	// Production sends both at once; the server commits as it reads the
	// Sync, so the gate adds only time between the batch's last statement
	// and its commit, as a slow network or server would.
	// hold marks the parked batch whose Sync will be held.
	execs int
	hold  bool
	held  bool

	wmu sync.Mutex // one writer at a time: the frontend parser is not shared
	fe  frontend

	// Guarded by rmu: one reader at a time. net.Conn allows Reads from
	// several goroutines and pgx makes them: when a write fails while its
	// background reader (started by a write parked past 15 ms) still reads
	// or has just read, pgconn's asyncClose drains the connection on a
	// goroutine of its own, with nothing ordering its Reads after the
	// background reader's.
	rmu     sync.Mutex
	in      []byte // bytes read from the server
	ready   int    // in[:ready] are whole messages, already looked at
	rerr    error  // a read error held back until ready bytes are consumed
	scratch [8192]byte
}

type finishedTrip struct {
	statements []string
	ans        answer
	withdrawn  bool // never sent
}

// Write parks the first write of each round trip until the controller
// releases it. A deadline set meanwhile (pgx sets one when the caller's
// context is cancelled) makes it give up without sending anything.
func (c *conn) Write(b []byte) (int, error) {
	if !c.armed.Load() {
		return c.Conn.Write(b)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s := c.fe.feed(b)
	s.endsInSync = s.endsInSync && bytes.HasSuffix(b, syncMsg) // whole in this write, nothing after it
	if s.first == msgTerminate {
		return c.Conn.Write(b) // closing: nothing to interleave
	}
	hold, err := c.ctl.send(c, s)
	if err != nil {
		return 0, err
	}
	if hold {
		// A Flush in the Sync's place: the server sends its answers
		// so far, which it would otherwise keep until the Sync.
		n, err := c.Conn.Write(append(b[:len(b)-len(syncMsg):len(b)-len(syncMsg)], flushMsg...))
		c.ctl.wrote(c, err)
		if err != nil {
			return min(n, len(b)), err
		}
		return len(b), nil
	}
	n, err := c.Conn.Write(b)
	c.ctl.wrote(c, err)
	return n, err
}

// Read hands out whole messages only, looking at each on the way.
func (c *conn) Read(b []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if !c.armed.Load() && len(c.in) == 0 {
		return c.Conn.Read(b)
	}
	for c.ready == 0 {
		if err := c.rerr; err != nil {
			c.rerr = nil
			return 0, err
		}
		n, err := c.Conn.Read(c.scratch[:])
		c.in = append(c.in, c.scratch[:n]...)
		c.frame()
		if err != nil {
			if c.ready == 0 {
				return 0, err
			}
			c.rerr = err
		}
	}
	n := copy(b, c.in[:c.ready])
	c.in = c.in[n:]
	c.ready -= n
	if len(c.in) == 0 {
		c.in = c.scratch[:0:0] // let the grown buffer go
	}
	return n, nil
}

// frame looks at each whole message beyond in[:ready] and marks it ready.
func (c *conn) frame() {
	for {
		rest := c.in[c.ready:]
		if len(rest) < headerLen {
			return
		}
		size := int(binary.BigEndian.Uint32(rest[1:headerLen])) + 1
		if size < headerLen {
			// Not the protocol the gate knows: stop looking, pass the rest.
			c.armed.Store(false)
			c.ready = len(c.in)
			return
		}
		if len(rest) < size {
			return
		}
		switch c.ctl.answered(c, rest[0], rest[headerLen:size]) {
		case pass:
			c.ready += size
		case drop:
			c.in = append(c.in[:c.ready], rest[size:]...)
		case cutOff:
			c.in, c.rerr = c.in[:c.ready], errAnswerLost
			_ = c.Conn.Close()
			return
		}
	}
}

// SetDeadline and SetWriteDeadline pass the deadline on and wake a parked
// write when one is set: pgconn sets a deadline only to abandon what it is
// doing (its context was cancelled), so the gate needs no clock to honour
// it.
func (c *conn) SetDeadline(t time.Time) error {
	c.ctl.deadline(c, !t.IsZero())
	return c.Conn.SetDeadline(t)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.ctl.deadline(c, !t.IsZero())
	return c.Conn.SetWriteDeadline(t)
}

func (c *conn) Close() error {
	c.ctl.closed(c)
	return c.Conn.Close()
}

// errAbandoned is what a parked write returns when its deadline is set or
// its connection closed: a timeout, which pgconn reports as the context's
// error.
var errAbandoned = os.ErrDeadlineExceeded

// errAnswerLost is what the client reads on a connection whose answer the
// controller threw away (ReleaseLosingAnswer): the connection dropped.
var errAnswerLost = io.ErrUnexpectedEOF
