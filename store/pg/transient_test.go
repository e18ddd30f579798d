package pg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestTerminatedConnectionIsUnavailable kills the pool's only connection
// (pg_terminate_backend, SQLSTATE 57P01 on the client): the next
// transaction fails with ErrUnavailable, naming where the store points, and
// the one after runs on a new connection.
func TestTerminatedConnectionIsUnavailable(t *testing.T) {
	ctx := t.Context()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	// One connection, never pinged before use: the pool hands out the dead
	// one, as it does when the server goes away between two ticks.
	cfg.MaxConns = 1
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pg.New(pool, pg.Options{Schema: pgtest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := s.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pid := conn.Conn().PgConn().PID()
	conn.Release()
	killer := connect(t)
	if _, err := killer.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the backend to end", func() bool {
		var n int
		err := killer.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n)
		return err == nil && n == 0
	})
	list := func() error {
		return s.InTx(ctx, func(tx store.Tx) error { _, err := tx.ListWorkers(ctx); return err })
	}
	err = list()
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a transaction on a terminated connection: %v, want ErrUnavailable", err)
	}
	wantNamed(t, "terminated connection", err.Error(), "schema="+s.Schema())
	if err := list(); err != nil {
		t.Fatalf("the next transaction: %v", err)
	}
}
