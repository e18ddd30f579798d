package interleave

import (
	"context"
	"fmt"
	"slices"
)

// Faults the controller injects at the gate, for runs that draw crashes
// and lost answers like the simulator's other faults. Each is recorded as
// an event and leaves the run as deterministic as a release: settling
// waits until the server has ended the process of every connection that
// went away, so whether its locks are still held never depends on timing.

// Sever closes the connection of a parked round trip, as a worker process
// that crashes between two statements: the round trip is never sent, the
// caller gets a connection error, and the server rolls back whatever
// transaction the connection had open.
func (ctl *Controller) Sever(id string) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	c, err := ctl.parkedLocked(id)
	if err != nil {
		return err
	}
	ctl.record(Event{Kind: Sever, Conn: c.id, Statements: c.trip, Open: ctl.openLocked()})
	ctl.goneLocked(c)
	return c.Conn.Close()
}

// Terminate ends the server process of a parked round trip's connection
// (pg_terminate_backend, waiting until it has ended), as an operator or a
// failover would, and then releases the round trip: the caller finds the
// connection gone, the server has rolled back. Only the Terminate event is
// recorded: whether the caller reads the server's farewell or a broken
// pipe is the network's choice.
func (ctl *Controller) Terminate(ctx context.Context, id string) error {
	ctl.mu.Lock()
	c, err := ctl.parkedLocked(id)
	if err != nil {
		ctl.mu.Unlock()
		return err
	}
	ctl.record(Event{Kind: Terminate, Conn: c.id, Statements: c.trip, Open: ctl.openLocked()})
	c.terminated = true
	ctl.mu.Unlock()
	var ended bool
	if err := ctl.admin.QueryRow(ctx, "SELECT pg_terminate_backend($1, 10000)", int32(c.pid)).Scan(&ended); err != nil || !ended {
		return fmt.Errorf("interleave: terminate the server process of %s: ended %v: %w", id, ended, err)
	}
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	c.phase = sent
	if c.held {
		ctl.writeHeldLocked(c) // to the ended process: the write or the read fails
	}
	ctl.cond.Broadcast()
	return nil
}

// ReleaseLosingAnswer releases a parked round trip and throws its answer
// away: the server runs it (a COMMIT commits) but the caller sees the
// connection drop, as when the network fails just after the server
// answered. The Done event still records what the server said.
func (ctl *Controller) ReleaseLosingAnswer(id string) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	c, err := ctl.parkedLocked(id)
	if err != nil {
		return err
	}
	c.lose = true
	c.phase = sent
	ctl.record(Event{Kind: Lose, Conn: c.id, Statements: c.trip, Open: ctl.openLocked()})
	if c.held {
		ctl.writeHeldLocked(c)
	}
	ctl.cond.Broadcast()
	return nil
}

func (ctl *Controller) parkedLocked(id string) (*conn, error) {
	i := slices.IndexFunc(ctl.conns, func(c *conn) bool { return c.id == id && !c.closed })
	if i < 0 || ctl.conns[i].phase != parked {
		return nil, fmt.Errorf("interleave: no round trip of %s is parked", id)
	}
	return ctl.conns[i], nil
}

// zombiesGone reports whether the server has ended the processes of every
// closed connection, forgetting those it has.
func (ctl *Controller) zombiesGone(ctx context.Context) (bool, error) {
	ctl.mu.Lock()
	pids := slices.Clone(ctl.zombies)
	ctl.mu.Unlock()
	if len(pids) == 0 {
		return true, nil
	}
	var alive []int32
	err := ctl.admin.QueryRow(ctx, "SELECT coalesce(array_agg(pid), '{}') FROM pg_stat_activity WHERE pid = ANY($1)", pids).Scan(&alive)
	if err != nil {
		return false, fmt.Errorf("interleave: ask the server which closed connections live on: %w", err)
	}
	ctl.mu.Lock()
	ctl.zombies = slices.DeleteFunc(ctl.zombies, func(p int32) bool {
		return slices.Contains(pids, p) && !slices.Contains(alive, p)
	})
	ctl.mu.Unlock()
	return len(alive) == 0, nil
}
