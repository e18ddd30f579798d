package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// nodeState is what the monitor says of one node: the state the node last
// reported and the one the monitor assigned it.
type nodeState struct {
	name, reported, goal string
}

func (s nodeState) String() string {
	if s.reported == s.goal {
		return s.name + " " + s.reported
	}
	return s.name + " " + s.reported + "→" + s.goal
}

// query runs fn on a new connection to url, closed after.
func query(ctx context.Context, url string, fn func(*pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn)
}

// states reads the monitor's view of the nodes, by name.
func (c *cluster) states(ctx context.Context) ([]nodeState, error) {
	var out []nodeState
	err := query(ctx, c.monitor.url("pg_auto_failover"), func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, "SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodename")
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (s nodeState, err error) {
			return s, r.Scan(&s.name, &s.reported, &s.goal)
		})
		return err
	})
	return out, err
}

// healthy reports whether every node of c has reached the state assigned
// to it, one primary and the others secondaries (a lone node: single).
func (c *cluster) healthy(states []nodeState) bool {
	if len(states) != len(c.nodes) {
		return false
	}
	primaries := 0
	for _, s := range states {
		if s.reported != s.goal {
			return false
		}
		switch {
		case s.reported == "primary" || (s.reported == "single" && len(states) == 1):
			primaries++
		case s.reported != "secondary":
			return false
		}
	}
	return primaries == 1
}

// waitHealthy waits until the cluster is healthy, or fails after timeout
// with the states it last read. It hurries the primary's checkpoints,
// which a joining standby's base backup waits for.
func (c *cluster) waitHealthy(ctx context.Context, timeout time.Duration) error {
	deadline, hurried := time.Now().Add(timeout), time.Now()
	for {
		states, err := c.states(ctx)
		if err == nil && c.healthy(states) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster is not healthy after %v: states %v, err %v (logs in %s)", timeout, states, err, c.dir)
		}
		if time.Since(hurried) > 2*time.Second {
			p, _ := c.primaryNow(ctx)
			c.hurryCheckpoint(ctx, p)
			hurried = time.Now()
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// tuneMonitor waits for the monitor to answer, then applies
// monitorSettings.
func (c *cluster) tuneMonitor(ctx context.Context) error {
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if _, err = c.states(ctx); err == nil {
			break
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("the monitor does not answer: %w (logs in %s)", err, c.dir)
	}
	return query(ctx, c.monitor.url("pg_auto_failover"), func(conn *pgx.Conn) error {
		keys := make([]string, 0, len(monitorSettings))
		for k := range monitorSettings {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, err := conn.Exec(ctx, "ALTER SYSTEM SET "+k+" = "+monitorSettings[k]); err != nil {
				return fmt.Errorf("monitor setting %s: %w", k, err)
			}
		}
		_, err := conn.Exec(ctx, "SELECT pg_reload_conf()")
		return err
	})
}

// primaryNow is the node that takes writes, as the nodes themselves say,
// with when its postmaster started; nil when none does. A node promoted
// but still read-only (pg_auto_failover's stop_replication state, until
// the old primary's demote timeout) does not count: the workers'
// target_session_attrs=read-write passes it by too.
func (c *cluster) primaryNow(ctx context.Context) (*autoctl, time.Time) {
	for _, n := range c.nodes {
		var readOnly bool
		var started time.Time
		err := query(ctx, n.url("test"), func(conn *pgx.Conn) error {
			return conn.QueryRow(ctx, "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool, pg_postmaster_start_time()").
				Scan(&readOnly, &started)
		})
		if err == nil && !readOnly {
			return n, started
		}
	}
	return nil, time.Time{}
}

// waitPrimary asks for the node that takes writes until one answers or
// timeout passes (nil then): on a loaded machine a healthy primary may
// take longer than one question's deadline to answer.
func (c *cluster) waitPrimary(ctx context.Context, timeout time.Duration) (*autoctl, time.Time, error) {
	for deadline := time.Now().Add(timeout); ; {
		if n, started := c.primaryNow(ctx); n != nil || !time.Now().Before(deadline) {
			return n, started, nil
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return nil, time.Time{}, err
		}
	}
}

// replication describes the primary's synchronous replication setting, for
// the report.
func (c *cluster) replication(ctx context.Context) string {
	p, _ := c.primaryNow(ctx)
	if p == nil {
		return "no primary"
	}
	var names, commit string
	err := query(ctx, p.url("test"), func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT current_setting('synchronous_standby_names'), current_setting('synchronous_commit')").Scan(&names, &commit)
	})
	if err != nil {
		return "unknown: " + err.Error()
	}
	return fmt.Sprintf("synchronous_standby_names=%s synchronous_commit=%s", strings.TrimSpace(names), commit)
}

// droppedSyncSince reports whether the monitor, since t, set a primary to
// wait_primary because no standby was healthy while a standby was being
// promoted: synchronous replication is then off on a node that still
// takes writes and is about to be demoted, and the commits it acknowledges
// meanwhile are discarded by the rewind (a race of the monitor in planned
// failovers that plannedFailover avoids; docs/FAILOVER.md).
func (c *cluster) droppedSyncSince(ctx context.Context, t time.Time) bool {
	var n int
	err := query(ctx, c.monitor.url("pg_auto_failover"), func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, `SELECT count(*) FROM pgautofailover.event
			WHERE eventtime >= $1 AND goalstate = 'wait_primary' AND description LIKE '%none of the standby nodes in the quorum are healthy%'`, t).Scan(&n)
	})
	return err == nil && n > 0
}

// eventsSince lists the monitor's events since t, one a line, for a
// problem's detail: the sequence of goal states says what went wrong.
func (c *cluster) eventsSince(ctx context.Context, t time.Time) string {
	var b strings.Builder
	err := query(ctx, c.monitor.url("pg_auto_failover"), func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT to_char(eventtime, 'HH24:MI:SS.MS'), nodename, reportedstate::text, goalstate::text, description
			FROM pgautofailover.event WHERE eventtime >= $1 ORDER BY eventid`, t)
		if err != nil {
			return err
		}
		var at, node, reported, goal, what string
		_, err = pgx.ForEachRow(rows, []any{&at, &node, &reported, &goal, &what}, func() error {
			fmt.Fprintf(&b, "%s %s %s→%s: %s\n", at, node, reported, goal, what)
			return nil
		})
		return err
	})
	if err != nil {
		fmt.Fprintf(&b, "(the monitor's events could not be read: %v)\n", err)
	}
	return b.String()
}
