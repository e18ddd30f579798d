package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// plannedFailoverSQL starts a planned failover in the schema of the
// pg_auto_failover extension (pgautofailover) as `pg_autoctl perform
// failover` does, but with the monitor's node table locked first.
//
// pg_auto_failover 2.0's node_active (each keeper's report, once a second)
// reads its node's row before it takes the group's lock. A report of the
// primary's that read the row before perform_failover committed then goes
// on, after it, with the primary's old goal: it sees a primary whose
// standby is no longer `secondary` (it was just told prepare_promotion)
// and sets the primary to wait_primary, which turns synchronous
// replication off while the primary still takes writes; the rewind that
// later makes it a standby discards what it acknowledged meanwhile. The
// same race, the other way round, is the deadlock that sometimes refuses
// perform_failover. Holding the table in ACCESS EXCLUSIVE mode makes the
// reports already under way finish before perform_failover starts and the
// next ones read the row after it committed. docs/FAILOVER.md has the
// evidence and the operator's form of this.
func plannedFailoverSQL(schema string) string {
	return fmt.Sprintf(`
SET LOCAL lock_timeout = '10s';
LOCK TABLE %[1]s IN ACCESS EXCLUSIVE MODE;
SELECT %[2]s('default', 0);`, pgx.Identifier{schema, "node"}.Sanitize(), pgx.Identifier{schema, "perform_failover"}.Sanitize())
}

// plannedFailover runs plannedFailoverSQL in one transaction on the
// monitor, as its superuser. It returns once the monitor has assigned the
// new goal states; the failover itself then takes seconds.
func (c *cluster) plannedFailover(ctx context.Context) error {
	if err := lockedFailover(ctx, c.monitor.url("pg_auto_failover"), "pgautofailover"); err != nil {
		return fmt.Errorf("perform_failover with pgautofailover.node locked, on the monitor at port %d: %w", c.monitor.port, err)
	}
	return nil
}

// lockedFailover runs plannedFailoverSQL for the pg_auto_failover schema
// of the database at url.
func lockedFailover(ctx context.Context, url, schema string) error {
	return query(ctx, url, func(conn *pgx.Conn) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, plannedFailoverSQL(schema))
			return err
		})
	})
}
