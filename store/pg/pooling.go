package pg

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoListen is what Listen returns when Options.TransactionPooling is set
// without Options.ListenURL: a pooler in transaction mode hands each
// transaction to any server connection, so a LISTEN through it hears
// nothing. Workers then poll.
var ErrNoListen = errors.New("store/pg: no notifications through a transaction pooler without Options.ListenURL; polling only")

// poolerSafe makes the pool's statements independent of the server
// connection they land on when the URL goes through a pooler in
// transaction mode. pgx's default caches named prepared statements per
// connection, which PgBouncer before 1.21 cannot follow from one server
// connection to the next. Cached descriptions send every statement as an
// unnamed one, parsed and executed in a single round trip, and learn the
// parameter types once per client connection.
func poolerSafe(cfg *pgxpool.Config, opts Options) {
	if opts.TransactionPooling {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
}

// parseListenURL reads Options.ListenURL; nil when it is empty.
func parseListenURL(opts Options) (*pgx.ConnConfig, error) {
	if opts.ListenURL == "" {
		return nil, nil
	}
	cfg, err := pgx.ParseConfig(opts.ListenURL)
	if err != nil {
		return nil, fmt.Errorf("listen URL: %w", parseError(opts.ListenURL, err))
	}
	return cfg, nil
}

// listenConfig is the connection a Listen opens: ListenURL's when given,
// else the pool's, unless that goes through a transaction pooler.
func (s *Store) listenConfig() (*pgx.ConnConfig, error) {
	switch {
	case s.listenCfg != nil:
		return s.listenCfg.Copy(), nil
	case s.opts.TransactionPooling:
		return nil, ErrNoListen
	}
	return s.pool.Config().ConnConfig.Copy(), nil
}
