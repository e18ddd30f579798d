package interleave_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestBatchWaitNamesTheStatementThatWaits: a leader's transaction declares
// worker b dead and holds the row while b reserves in a transaction of its
// own. b's batch, sent after the prepare of its reservation, waits at its
// first statement, the liveness check that share-locks b's row; the wait
// names that statement, never the reservation (simulate -store pg
// -interleave, seed 27 once in three runs of 200 seeds: the controller read
// pg_stat_activity in the statement that found the wait, whose snapshot
// could predate the batch and still show the prepared reservation).
func TestBatchWaitNamesTheStatementThatWaits(t *testing.T) {
	long.Test(t, "12 interleaved seeds")
	w := newReserveWorld(t)
	waited := 0
	for seed := uint64(1); seed <= 12; seed++ {
		w.reset(seed)
		r := w.run(seed, "leader", "b")
		var errLeader error
		w.goDeclareDead(r, "leader", w.workers[1], &errLeader)
		r.ctl.Go("b", func() {
			ctx := context.Background()
			_ = r.stores["b"].InTx(ctx, func(tx store.Tx) error {
				_, err := tx.Reserve(ctx, w.workers[1], []string{"q"}, 1)
				return err // b may be dead by then: either answer will do
			})
		})
		events := r.finish()
		if errLeader != nil {
			t.Fatalf("seed %d: leader: %v\n%s", seed, errLeader, trace(events))
		}
		if bad := props.ReservationWaits(lockWaits(events), pg.IsReservation); len(bad) > 0 {
			t.Fatalf("seed %d: a reservation waited: %v\n%s", seed, bad, trace(events))
		}
		seen := false
		for _, e := range events {
			if e.Kind != interleave.Wait {
				continue
			}
			if e.Conn != "b#0" || !slices.Equal(e.On, []string{"leader#0"}) || len(e.Statements) < 2 ||
				e.Waiting != e.Statements[0] || !strings.Contains(e.Waiting, "FOR SHARE") {
				t.Fatalf("seed %d: want b's batch waiting on the leader at its liveness check, got %s\n%s", seed, e, trace(events))
			}
			seen = true
		}
		if seen {
			waited++
		}
	}
	reached(t, waited, 12, "b's batch waited on the leader at its liveness check")
}

// TestActivityIsASnapshot is what blockers relies on: within one
// transaction, and so within one statement, pg_blocking_pids reads the
// locks as they are, while pg_stat_activity keeps what it showed when the
// transaction first read it. A connection found waiting can be shown idle
// at the statement it ran before; a fresh transaction shows the one that
// waits.
func TestActivityIsASnapshot(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.exec("CREATE TABLE {schema}.t (id int PRIMARY KEY, v int NOT NULL)")
	w.exec("INSERT INTO {schema}.t VALUES (1, 0)")
	holder, err := pgx.Connect(ctx, w.url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	waiter, err := pgx.Connect(ctx, w.url)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close(ctx)
	table := pgx.Identifier{w.schema}.Sanitize() + ".t"
	htx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer htx.Rollback(ctx)
	if _, err := htx.Exec(ctx, "UPDATE "+table+" SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	const before = "SELECT 'prepared, never run'"
	if _, err := waiter.Prepare(ctx, "before", before); err != nil {
		t.Fatal(err)
	}
	pid := int32(waiter.PgConn().PID())
	const activity = "SELECT coalesce((SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1), '')"
	atx, err := w.admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer atx.Rollback(ctx)
	var shown string
	if err := atx.QueryRow(ctx, activity, pid).Scan(&shown); err != nil {
		t.Fatal(err)
	}
	const lock = "SELECT v FROM %s WHERE id = 1 FOR UPDATE"
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(context.Background(), strings.Replace(lock, "%s", table, 1))
		done <- err
	}()
	ask, err := pgx.Connect(ctx, w.url) // fresh transactions, to wait for the wait
	if err != nil {
		t.Fatal(err)
	}
	defer ask.Close(ctx)
	for {
		var n int
		if err := ask.QueryRow(ctx, "SELECT cardinality(pg_blocking_pids($1))", pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
	}
	var by []int32
	if err := atx.QueryRow(ctx, "SELECT pg_blocking_pids($1)", pid).Scan(&by); err != nil {
		t.Fatal(err)
	}
	if err := atx.QueryRow(ctx, activity, pid).Scan(&shown); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(by, []int32{int32(holder.PgConn().PID())}) || shown != "idle: "+before {
		t.Fatalf("in one transaction: blocked by %v (holder %d), shown %q; want the holder, and the snapshot's %q", by, holder.PgConn().PID(), shown, "idle: "+before)
	}
	if err := ask.QueryRow(ctx, activity, pid).Scan(&shown); err != nil {
		t.Fatal(err)
	}
	if want := "active: " + strings.Replace(lock, "%s", table, 1); shown != want {
		t.Fatalf("in a fresh transaction: shown %q, want %q", shown, want)
	}
	if err := htx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
