package interleave

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// settle waits until nothing moves without the controller: every running
// actor has a round trip parked at the gate or one the server holds on a
// lock of another gated connection, and every released round trip has
// either been answered or waits on such a lock. Then it records what
// finished and who waits on whom, in connection order, so that what is
// recorded does not depend on when the answers arrived.
func (ctl *Controller) settle(ctx context.Context) error {
	delay := minPoll
	ask := false // a released round trip usually answers within the first
	// poll delay: ask the server about it only once that has passed
	for {
		ctl.mu.Lock()
		v := ctl.version
		quiet, flight := ctl.quietLocked()
		ctl.mu.Unlock()
		if quiet && (ask || len(flight) == 0) {
			gone, err := ctl.zombiesGone(ctx)
			if err != nil {
				return err
			}
			on, blocked, err := ctl.blockers(ctx, flight)
			if err != nil {
				return err
			}
			blocked = blocked && gone
			ctl.mu.Lock()
			if ctl.version == v && blocked {
				ctl.reportLocked(flight, on)
				ctl.mu.Unlock()
				return nil
			}
			ctl.mu.Unlock()
		}
		changed, err := ctl.wait(ctx, quiet, &delay)
		if err != nil {
			return err
		}
		ask = !changed
	}
}

// wait blocks until something changes (and reports true), or, while
// released round trips run on the server (quiet), until it is time to ask
// the server again.
func (ctl *Controller) wait(ctx context.Context, quiet bool, delay *time.Duration) (bool, error) {
	if !quiet {
		select {
		case <-ctl.changed:
			*delay = minPoll
			return true, nil
		case <-ctx.Done():
			return false, ctl.stuck(ctx)
		}
	}
	timer := ctl.clk.Timer(*delay)
	defer timer.Stop()
	select {
	case <-ctl.changed:
		*delay = minPoll
		return true, nil
	case <-timer.C:
		*delay = min(2**delay, maxPoll)
		return false, nil
	case <-ctx.Done():
		return false, ctl.stuck(ctx)
	}
}

// quietLocked reports whether every running actor has a round trip at the
// gate or on the server, and returns those on the server.
func (ctl *Controller) quietLocked() (bool, []*conn) {
	has := map[string]bool{}
	var flight []*conn
	quiet := true
	for _, c := range ctl.sortedLocked() {
		if c.closed {
			continue
		}
		switch c.phase {
		case parked:
			has[c.label] = true
		case sent:
			if c.terminated && ctl.actors[c.label] == 0 {
				// Its server process is gone and its actor has returned:
				// no answer will come that anyone reads, and nothing is
				// recorded of it any more; pgx closes it when it will.
				continue
			}
			has[c.label] = true
			flight = append(flight, c)
			if c.victim {
				quiet = false // cancelled: its answer is coming
			}
		}
	}
	for _, label := range ctl.busyLocked() {
		if !has[label] {
			quiet = false
		}
	}
	return quiet, flight
}

// blockers asks the server which gated connections each connection of
// flight waits on. blocked is true when every one of them waits, and only
// on gated connections: a wait on anything else (another client's brief
// lock) will end without the controller.
func (ctl *Controller) blockers(ctx context.Context, flight []*conn) (map[*conn]waiting, bool, error) {
	if len(flight) == 0 {
		return nil, true, nil
	}
	pids := make([]int32, len(flight))
	ctl.mu.Lock()
	byPid := map[int32]*conn{}
	for _, c := range ctl.conns {
		if !c.closed {
			byPid[int32(c.pid)] = c
		}
	}
	for i, c := range flight {
		pids[i] = int32(c.pid)
	}
	ctl.mu.Unlock()
	rows, err := ctl.admin.Query(ctx, `SELECT p, pg_blocking_pids(p),
		coalesce((SELECT query FROM pg_stat_activity a WHERE a.pid = p), '')
		FROM unnest($1::int4[]) AS p`, pids)
	if err != nil {
		return nil, false, fmt.Errorf("interleave: ask the server who waits: %w", err)
	}
	waits := map[int32][]int32{}
	queries := map[int32]string{}
	for rows.Next() {
		var p int32
		var by []int32
		var query string
		if err := rows.Scan(&p, &by, &query); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("interleave: read who waits: %w", err)
		}
		waits[p], queries[p] = by, query
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("interleave: read who waits: %w", err)
	}
	on := map[*conn]waiting{}
	for _, c := range flight {
		by := waits[int32(c.pid)]
		if len(by) == 0 {
			return nil, false, nil
		}
		w := waiting{statement: ctl.unschemaOne(queries[int32(c.pid)])}
		for _, p := range by {
			b, ok := byPid[p]
			if !ok {
				return nil, false, nil
			}
			w.on = append(w.on, b)
		}
		on[c] = w
	}
	return on, true, nil
}

// waiting is what the server holds one round trip on: the statement that
// waits (of a pipelined batch, the one that reached the lock) and the
// connections it waits on.
type waiting struct {
	statement string
	on        []*conn
}

// reportLocked records the round trips answered since the last settle and
// every change in who waits on whom.
func (ctl *Controller) reportLocked(flight []*conn, on map[*conn]waiting) {
	for _, c := range ctl.sortedLocked() {
		for _, f := range c.finished {
			if f.withdrawn {
				ctl.record(Event{Kind: Withdraw, Conn: c.id, Statements: f.statements})
				continue
			}
			ctl.record(Event{Kind: Done, Conn: c.id, Statements: f.statements,
				Tags: f.ans.tags, Code: f.ans.code, Tx: txStatus(f.ans.tx)})
		}
		c.finished = nil
	}
	ctl.conns = slices.DeleteFunc(ctl.conns, func(c *conn) bool { return c.closed })
	for _, c := range flight {
		w := on[c]
		ids := idsOf(w.on)
		if !slices.Equal(ids, c.on) || w.statement != c.waiting {
			c.on, c.waiting = ids, w.statement
			ctl.record(Event{Kind: Wait, Conn: c.id, Statements: c.trip, On: ids, Waiting: w.statement})
		}
	}
}

func idsOf(cs []*conn) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// breakDeadlock looks for a cycle of waits among the settled connections
// and, if there is one, cancels the statement of a member drawn from the
// seed, as the server's deadlock detector would abort one (its error is
// rewritten to the detector's SQLSTATE); without one, it cancels a rival
// waiter the same way (rivalLocked). Gated sessions run with a
// deadlock_timeout longer than any run, so the server never gets there
// first.
func (ctl *Controller) breakDeadlock(ctx context.Context) (bool, error) {
	ctl.mu.Lock()
	var victim *conn
	var on []string
	kind := Cancel
	if cycle := ctl.cycleLocked(); cycle != nil {
		victim, on = cycle[ctl.victims.IntN(len(cycle))], idsOf(cycle)
	} else {
		victim, on = ctl.rivalLocked()
		kind = Rival
	}
	if victim == nil {
		ctl.mu.Unlock()
		return false, nil
	}
	victim.victim = true
	ctl.record(Event{Kind: kind, Conn: victim.id, Statements: victim.trip, On: on})
	pid := int32(victim.pid)
	ctl.mu.Unlock()
	if _, err := ctl.admin.Exec(ctx, "SELECT pg_cancel_backend($1)", pid); err != nil {
		return false, fmt.Errorf("interleave: cancel the statement of %s: %w", victim.id, err)
	}
	return true, nil
}

// cycleLocked returns the members of the first cycle of waits found by a
// depth-first search from each connection in order; nil if there is none.
func (ctl *Controller) cycleLocked() []*conn {
	conns := ctl.sortedLocked()
	byID := map[string]*conn{}
	for _, c := range conns {
		byID[c.id] = c
	}
	const onStack, done = 1, 2
	state := map[*conn]int{}
	var stack, found []*conn
	var visit func(c *conn) bool
	visit = func(c *conn) bool {
		state[c] = onStack
		stack = append(stack, c)
		for _, id := range c.on {
			next := byID[id]
			switch {
			case next == nil:
			case state[next] == onStack:
				found = slices.Clone(stack[slices.Index(stack, next):])
				return true
			case state[next] == 0 && visit(next):
				return true
			}
		}
		state[c] = done
		stack = stack[:len(stack)-1]
		return false
	}
	for _, c := range conns {
		if state[c] == 0 && visit(c) {
			return found
		}
	}
	return nil
}

// stuck explains a context that ended while the controller waited.
func (ctl *Controller) stuck(ctx context.Context) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	var b strings.Builder
	for _, c := range ctl.sortedLocked() {
		fmt.Fprintf(&b, " %s:%s", c.id, [...]string{"idle", "parked", "sent"}[c.phase])
	}
	return fmt.Errorf("interleave: %w while settling (busy actors %v; connections%s)", ctx.Err(), ctl.busyLocked(), b.String())
}
