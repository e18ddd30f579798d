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
// recorded does not depend on when the answers arrived. It returns the
// version of the state it found settled.
func (ctl *Controller) settle(ctx context.Context) (uint64, error) {
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
				return 0, err
			}
			on, blocked, err := ctl.blockers(ctx, flight)
			if err != nil {
				return 0, err
			}
			blocked = blocked && gone
			ctl.mu.Lock()
			if ctl.version == v && blocked {
				ctl.reportLocked(flight, on)
				ctl.mu.Unlock()
				return v, nil
			}
			ctl.mu.Unlock()
		}
		changed, err := ctl.wait(ctx, quiet, &delay)
		if err != nil {
			return 0, err
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
// flight waits on, and which of its statements waits. blocked is true when
// every one of them waits, and only on gated connections: a wait on
// anything else (another client's brief lock) will end without the
// controller.
//
// The statements come from a second question, asked once the first has
// found every connection of flight waiting. pg_blocking_pids reads the lock
// table as it is, but pg_stat_activity is a snapshot taken when a
// transaction first reads it: asked in one statement, a connection could be
// found waiting by pg_blocking_pids after the snapshot showed it before its
// round trip reached the server, idle with the text of what it last ran
// (the prepare of a batch's reservation, found by simulate -store pg
// -interleave, once in 600 seeds: the liveness check of the batch waited,
// the reservation was blamed), or at an earlier statement of the same
// batch. Once every connection of flight waits on gated ones none of them
// moves until the controller lets one go, so a snapshot taken after that
// shows each at the statement that waits; the second question checks that
// each is still held by the same connections and that the snapshot shows
// it running, and the controller asks again if not.
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
	first, err := ctl.ask(ctx, `SELECT p, pg_blocking_pids(p), '', '' FROM unnest($1::int4[]) AS p`, pids)
	if err != nil {
		return nil, false, err
	}
	for _, p := range pids {
		by := first[p].by
		if len(by) == 0 {
			return nil, false, nil
		}
		for _, b := range by {
			if _, ok := byPid[b]; !ok {
				return nil, false, nil
			}
		}
	}
	// A statement of its own, so a transaction of its own: its snapshot of
	// pg_stat_activity is taken after every connection was seen waiting.
	second, err := ctl.ask(ctx, `SELECT p, pg_blocking_pids(p),
		coalesce((SELECT state FROM pg_stat_activity a WHERE a.pid = p), ''),
		coalesce((SELECT query FROM pg_stat_activity a WHERE a.pid = p), '')
		FROM unnest($1::int4[]) AS p`, pids)
	if err != nil {
		return nil, false, err
	}
	on := map[*conn]waiting{}
	for _, c := range flight {
		p := int32(c.pid)
		now := second[p]
		if !slices.Equal(now.by, first[p].by) || now.state != "active" {
			return nil, false, nil
		}
		w := waiting{statement: ctl.unschemaOne(now.query)}
		for _, b := range now.by {
			w.on = append(w.on, byPid[b])
		}
		on[c] = w
	}
	return on, true, nil
}

// activity is what the server said of one backend: the pids that block it
// (sorted), and its state and statement in pg_stat_activity.
type activity struct {
	by           []int32
	state, query string
}

// ask runs one of blockers' questions, on pids, of the form
// SELECT pid, blocking pids, state, query.
func (ctl *Controller) ask(ctx context.Context, sql string, pids []int32) (map[int32]activity, error) {
	rows, err := ctl.admin.Query(ctx, sql, pids)
	if err != nil {
		return nil, fmt.Errorf("interleave: ask the server who waits: %w", err)
	}
	out := map[int32]activity{}
	for rows.Next() {
		var p int32
		var a activity
		if err := rows.Scan(&p, &a.by, &a.state, &a.query); err != nil {
			rows.Close()
			return nil, fmt.Errorf("interleave: read who waits: %w", err)
		}
		slices.Sort(a.by)
		out[p] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("interleave: read who waits: %w", err)
	}
	return out, nil
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
