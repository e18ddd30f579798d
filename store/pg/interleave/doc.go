// Package interleave runs the transactions of several PostgreSQL stores
// concurrently on a real server, one round trip at a time, in an order
// drawn from a seed, so that a race between transactions can be provoked
// and replayed.
//
// Each actor (a worker process) gets its own pg.Store opened with
// pg.Options.Gate set to Controller.Gate(label). The gate wraps the
// net.Conn of each pooled connection (pgconn's AfterNetConnect, after TLS,
// so the bytes are the protocol in clear) and follows the frontend
// protocol: the first write of a round trip parks until the controller
// releases it, and a round trip ends when every Sync and simple Query it
// sent has been answered by its ReadyForQuery. That boundary is exact
// whatever the client does above the wire: pgx's implicit prepares (a
// Parse/Describe/Sync before the first run of a statement), BEGIN and
// COMMIT, a pipelined batch such as the job pass (one Sync, one round
// trip; the Sync of one that commits is held back as a round trip of its
// own, see conn.held) and COPY (its Query is answered only after the rows
// and CopyDone). A gate at the store's Tx methods would see none of those
// boundaries.
//
// The controller (Controller.Step, Run) waits until every running actor
// has a round trip parked at the gate or held by the server on a lock of
// another gated connection — asked of the server with pg_blocking_pids —
// and every released round trip is answered or so held. Only then does it
// choose, so the choice never depends on goroutine or network timing. A
// cycle of waits is broken by cancelling (pg_cancel_backend) the statement
// of a member drawn from the seed; the gate rewrites its error to the
// deadlock detector's SQLSTATE 40P01, and gated sessions run with a
// deadlock_timeout beyond any run so that the server's detector never
// decides first. The same seed, actors and starting data give the same
// sequence of Events.
//
// Limits: an actor runs one goroutine at a time (Go enforces it), since
// the order of two round trips of one actor would be the runtime's choice;
// the wait graph includes pg_blocking_pids' soft edges (waiters queued
// ahead), where the server might reorder a queue instead of aborting; and
// Listen's and Migrate's dedicated connections are not gated.
package interleave
