package pg_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestUngatedPoolHasNoHooks: without Options.Gate the pool is configured
// as pgx's defaults leave it, so production runs no gate code at all.
func TestUngatedPoolHasNoHooks(t *testing.T) {
	s := pgtest.Open(t, nil)
	cfg := s.Pool().Config()
	if cfg.BeforeConnect != nil || cfg.AfterConnect != nil || cfg.ShouldPing != nil || cfg.ConnConfig.AfterNetConnect != nil {
		t.Fatal("an ungated store's pool has connection hooks")
	}
}

type countingGate struct{ before, after int }

func (g *countingGate) BeforeConnect(context.Context, *pgx.ConnConfig) error { g.before++; return nil }
func (g *countingGate) AfterConnect(context.Context, *pgx.Conn) error        { g.after++; return nil }

// TestGateSeesEveryPooledConnection: the gate is asked about each new
// pooled connection, and only Open can install it.
func TestGateSeesEveryPooledConnection(t *testing.T) {
	g := &countingGate{}
	s := pgtest.OpenWith(t, pg.Options{Gate: g, MaxConns: 1})
	if g.before != 1 || g.after != 1 {
		t.Fatalf("gate saw %d/%d connections, want 1/1", g.before, g.after)
	}
	if _, err := s.Pool().Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pg.New(pool, pg.Options{Gate: g}); err == nil {
		t.Fatal("New accepted a gate it cannot install")
	}
}
