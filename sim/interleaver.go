package sim

import (
	"time"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// Interleaver lets the transactions of different simulated processes
// overlap on one real database (simulate -store pg -interleave, backed by
// store/pg/interleave). Each actor (a process, named as in the trace, or
// "client" for the enqueuing client and the operator) has a store of its
// own whose round trips park at a gate until the simulator releases them,
// one at a time, at virtual times drawn from the seed. The simulator only
// decides once Settle has returned, when nothing moves without it, so
// neither goroutine nor network timing decides anything.
//
// Commits are not reported by the actors' stores: after every round trip
// that ended a transaction the simulator reads the rows back through the
// run's Backend (a DiffBackend on the same schema, ungated) and attributes
// what changed to the actor whose transaction ended. Each settle ends at
// most one transaction, since a COMMIT is a round trip of its own, and so
// is a pipelined batch's Sync, which the gate holds back (Trip.Commit).
type Interleaver interface {
	// Store returns the gated store of actor label.
	Store(label string) store.Store
	// Go runs fn as actor label on a goroutine of its own; one at a time
	// per label.
	Go(label string, fn func())
	// Settle waits until every actor has a round trip parked, waits on a
	// lock of another actor or has returned, breaking deadlocks on the way
	// (victims drawn from the seed), and returns what happened since the
	// previous call.
	Settle() (Settled, error)
	// Release lets the parked round trip of connection conn go, with a
	// fault or not.
	Release(conn string, f TripFault) error
	// Reserves tells the store's statement that reserves jobs, as Waits
	// report it: the one that must never wait (props.ReservationWaits).
	Reserves(statement string) bool
	// Drain ends every actor's work at the end of a run: each parked round
	// trip's connection is closed until every actor has returned.
	Drain() error
}

// TripFault is what happens to a released round trip.
type TripFault uint8

const (
	// TripRelease sends the round trip.
	TripRelease TripFault = iota
	// TripSever closes its connection instead, statements outstanding: a
	// crash mid-transaction (the server rolls back).
	TripSever
	// TripTerminate ends its connection's server process first
	// (pg_terminate_backend) and then sends it.
	TripTerminate
	// TripLoseAnswer sends it and drops the answer: for a COMMIT, an
	// ambiguous commit.
	TripLoseAnswer
)

// Settled is what an Interleaver's Settle saw since the previous one.
type Settled struct {
	// Pending are the round trips parked, in connection order.
	Pending []Trip
	// Ended are the connections whose transaction ended (committed,
	// rolled back or closed), in order.
	Ended []string
	// Lines describe the round trips released, answered, waiting and
	// cancelled, one trace line each.
	Lines []string
	// Waits are the round trips the server began holding on locks.
	Waits []props.LockWait
	// Deadlocks counts the cycles of waits broken.
	Deadlocks int
	// Overlap: a round trip was released while another actor had a
	// transaction open.
	Overlap bool
}

// Trip is a round trip parked at the gate.
type Trip struct {
	Conn   string // "label#n": the n-th connection of actor label
	Commit bool   // it commits a transaction: a COMMIT, or a batch's Sync
}

// NewInterleaver makes the gated stores of one run's actors (the
// processes' names and "client") on the Backend's schema; now is the
// simulator's true time, read by the actors' stores.
type NewInterleaver func(now func() time.Time, actors []string) (Interleaver, error)
