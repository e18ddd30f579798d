package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// fakeMonitor makes schema a stand-in for the pgautofailover one: a node
// table, and a perform_failover that fails unless its transaction holds
// the node table in ACCESS EXCLUSIVE mode, which a keeper's report (a read
// of the table) would otherwise slip past.
func fakeMonitor(t *testing.T, ctx context.Context, url, schema string) {
	t.Helper()
	node, fn := pgx.Identifier{schema, "node"}.Sanitize(), pgx.Identifier{schema, "perform_failover"}.Sanitize()
	err := query(ctx, url, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()+`;
CREATE TABLE `+node+` (nodeid int);
CREATE FUNCTION `+fn+`(formation text, grp int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND relation = '`+node+`'::regclass AND mode = 'AccessExclusiveLock' AND granted)
	THEN RAISE EXCEPTION 'perform_failover(%, %) without the node table locked', formation, grp;
	END IF;
END $$;`)
		return err
	})
	if err != nil {
		t.Fatalf("create the stand-in monitor schema %s: %v", schema, err)
	}
}

// The planned failover calls perform_failover for the default formation's
// group 0 with the node table locked; called without the lock, the
// stand-in refuses, so the first check can fail.
func TestPlannedFailoverLocksTheNodeTable(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	fakeMonitor(t, ctx, url, schema)
	if err := lockedFailover(ctx, url, schema); err != nil {
		t.Errorf("the planned failover: %v; want perform_failover called with the node table locked", err)
	}
	err := query(ctx, url, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "SELECT "+pgx.Identifier{schema, "perform_failover"}.Sanitize()+"('default', 0)")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "without the node table locked") {
		t.Errorf("perform_failover without the lock: %v; want the stand-in's refusal", err)
	}
}

// A report under way (a transaction that has read the node table) holds
// the planned failover back until it ends, so that it cannot act on a row
// read before the failover.
func TestPlannedFailoverWaitsForReportsUnderWay(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	fakeMonitor(t, ctx, url, schema)
	report, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer report.Close(ctx)
	tx, err := report.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT * FROM "+pgx.Identifier{schema, "node"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- lockedFailover(ctx, url, schema) }()
	select {
	case err := <-done:
		t.Fatalf("the planned failover ended (%v) while a report held the node table", err)
	case <-time.After(500 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the planned failover after the report ended: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the planned failover did not go on once the report ended")
	}
}
