package interleave

import (
	"fmt"
	"strings"
)

// Kind is what happened to a round trip.
type Kind string

const (
	// Release: the controller let a parked round trip go to the server.
	Release Kind = "release"
	// Done: every answer of a round trip is in.
	Done Kind = "done"
	// Wait: a released round trip waits on locks held (or wanted first)
	// by the connections in On.
	Wait Kind = "wait"
	// Cancel: the controller cancelled a round trip to break the cycle of
	// waits among the connections in On.
	Cancel Kind = "cancel"
	// Rival: the controller cancelled, as a deadlock victim, a round trip
	// that waited on a holder another one (first in On) waited on too:
	// the server would wake both at once and their race decide the rest.
	Rival Kind = "rival"
	// Withdraw: a parked round trip was given up (its context was
	// cancelled, its connection closed) before it was sent.
	Withdraw Kind = "withdraw"
	// Sever: the controller closed the connection of a parked round trip.
	Sever Kind = "sever"
	// Terminate: the controller ended the server process of a parked
	// round trip's connection, then released it to find that out.
	Terminate Kind = "terminate"
	// Lose: the controller released a round trip whose answer the client
	// will not get; a Done follows with what the server said.
	Lose Kind = "lose"
)

// Event is one step of an interleaving. It holds nothing that differs
// between two runs of one seed: connections are named label#n (the n-th
// connection of that actor), never by server pid.
type Event struct {
	Kind Kind
	// Conn is the round trip's connection, "label#n".
	Conn string
	// Statements are the SQL texts the round trip runs, in order ("parse:
	// SQL" for one it only prepares, "copy data" for COPY rows).
	Statements []string
	// Tags are the command tags of a Done round trip ("UPDATE 1").
	Tags []string
	// Code is the SQLSTATE of a Done round trip's first error, if any.
	Code string
	// Tx is the connection's transaction status after a Done round trip:
	// "idle", "open" or "failed".
	Tx string
	// On are the connections a Wait waits on, or a Cancel's cycle.
	On []string
	// Waiting is, for a Wait, the statement the server holds: of a
	// pipelined batch, the one that reached the lock.
	Waiting string
	// Open lists, for a Release, the connections with a transaction open
	// (or failed, awaiting its rollback) as it goes.
	Open []string
}

func (e Event) String() string {
	var b strings.Builder
	short := make([]string, len(e.Statements))
	for i, s := range e.Statements {
		short[i] = Abbrev(s, 72)
	}
	fmt.Fprintf(&b, "%-8s %-6s %s", e.Kind, e.Conn, strings.Join(short, " | "))
	if len(e.Tags) > 0 || e.Code != "" || e.Tx != "" {
		fmt.Fprintf(&b, " -> %s", strings.Join(e.Tags, ","))
		if e.Code != "" {
			fmt.Fprintf(&b, " error %s", e.Code)
		}
		fmt.Fprintf(&b, " tx %s", e.Tx)
	}
	if len(e.On) > 0 {
		fmt.Fprintf(&b, " on %s", strings.Join(e.On, ","))
	}
	if len(e.Open) > 0 {
		fmt.Fprintf(&b, " [open %s]", strings.Join(e.Open, ","))
	}
	if e.Waiting != "" && len(e.Statements) > 1 {
		fmt.Fprintf(&b, " at %s", Abbrev(e.Waiting, 72))
	}
	return b.String()
}

func txStatus(b byte) string {
	switch b {
	case 'I':
		return "idle"
	case 'T':
		return "open"
	case 'E':
		return "failed"
	}
	return ""
}

// Abbrev puts a statement on one line of at most n bytes (and a few more
// for the ellipsis), for traces.
func Abbrev(sql string, n int) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > n {
		sql = sql[:n] + "…"
	}
	return sql
}
