package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Gate decides when each round trip of a store's pooled connections reaches
// the server, so that a test or the simulator can interleave the
// transactions of several stores deterministically (see package
// store/pg/interleave). Production leaves Options.Gate nil: then none of
// these hooks is installed and the pool's connections are pgx's own, so the
// ungated path runs exactly the code it ran before gates existed.
//
// Only the pool's connections are gated. Listen's and Migrate's dedicated
// connections are not: they copy the pool's ConnConfig, and the gate is
// installed on the pool's BeforeConnect, which that copy does not carry.
type Gate interface {
	// BeforeConnect may change the configuration of each new pooled
	// connection, typically to wrap its net.Conn (AfterNetConnect) and to
	// set session parameters.
	BeforeConnect(ctx context.Context, cfg *pgx.ConnConfig) error
	// AfterConnect is called once the connection is authenticated, before
	// the pool hands it out; from then on its round trips are gated.
	AfterConnect(ctx context.Context, conn *pgx.Conn) error
}

// installGate routes a pool's new connections through g. A gated pool never
// pings a connection on acquire: whether pgxpool pings depends on how long
// the connection sat idle in wall-clock time, so a ping would add a round
// trip to some runs of a seed and not to others.
func installGate(cfg *pgxpool.Config, g Gate) {
	before, after := cfg.BeforeConnect, cfg.AfterConnect
	cfg.BeforeConnect = func(ctx context.Context, cc *pgx.ConnConfig) error {
		if before != nil {
			if err := before(ctx, cc); err != nil {
				return err
			}
		}
		return g.BeforeConnect(ctx, cc)
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if after != nil {
			if err := after(ctx, conn); err != nil {
				return err
			}
		}
		return g.AfterConnect(ctx, conn)
	}
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
}
