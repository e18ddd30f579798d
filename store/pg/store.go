package pg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// DefaultSchema is the schema that holds the tables when Options.Schema is
// empty.
const DefaultSchema = "tickwork"

// Options configure a Store. The zero value is the production setting: the
// "tickwork" schema, the database's clock, pgxpool's default pool size.
type Options struct {
	// Schema names the schema that holds the tables (see ValidateSchema).
	// Empty means DefaultSchema.
	Schema string
	// Now is the store's clock. nil means the database's now(), which is
	// what production uses. When set, it is read once per transaction and
	// truncated to the microsecond.
	Now func() time.Time
	// MaxConns caps the connection pool; 0 keeps the URL's pool_max_conns
	// or pgxpool's default.
	MaxConns int32
	// Clock times the listener's reconnect backoff and connection checks;
	// nil means clockrng.Real().
	Clock clockrng.Clock
	// Logger receives the listener's reconnect warnings; nil discards them.
	Logger *slog.Logger
	// TransactionPooling says the URL goes through a pooler in transaction
	// mode (PgBouncer's pool_mode = transaction): Open sends statements
	// without named prepared statements, and Listen uses ListenURL or, when
	// it is empty, returns ErrNoListen so that workers poll. With New, the
	// caller's pool must itself avoid named prepared statements (for
	// instance pgx.QueryExecModeCacheDescribe).
	TransactionPooling bool
	// ListenURL, if set, is where Listen connects instead of the store's
	// URL: a direct connection to PostgreSQL when the store's goes through
	// a pooler.
	ListenURL string
	// ConnectTimeout bounds one connection attempt, when the URL has no
	// connect_timeout (0: DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// KeepAlive is the idle time before the first TCP keepalive probe of
	// every connection; probes follow every third of it, and three
	// unanswered ones drop the connection (0: DefaultKeepAlive).
	KeepAlive time.Duration
	// UserTimeout is how long data sent on a connection may stay
	// unacknowledged before the kernel drops the connection: a write into
	// a network that went silent fails then instead of after the
	// kernel's retransmissions, about 15 minutes (TCP_USER_TIMEOUT; Linux
	// only, ignored elsewhere; 0: DefaultUserTimeout).
	UserTimeout time.Duration
	// ListenCheck is how long the listener waits for a notification
	// before it pings its connection, and how long the ping may take
	// before the listener reconnects (0: DefaultListenCheck).
	ListenCheck time.Duration
	// Gate, when set, decides when each round trip of the pool's
	// connections is sent (tests and the simulator; see Gate). nil in
	// production. Only Open can install it: New gets a ready pool.
	Gate Gate
}

// Store is a store.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	ownsPool bool
	opts     Options
	schema   string // validated, unquoted
	ident    string // the schema as a quoted identifier
	target   string // host, port, database and schema, for error messages
	queries  sync.Map
	stmt     statements // built once, with the schema (mutants.go)

	chAvailable string
	chStepdown  string
	chCancel    string
	dutyKey     int64
	migrateKey  int64
	listenCfg   *pgx.ConnConfig // from Options.ListenURL; nil without one
	queueKey    int32           // with hashtext(queue), the key of a queue's advisory lock
	limitKey    int32           // with hashtext(queue), the key of a limited queue's limit lock (limit.go)
	sequenceKey int32           // with hashtext(key), the key of a sequence's insert lock (reserve_sequence.go)
	controlled  atomic.Bool     // the next reservation sends reserveSQL (reserve_plain.go)
	keyed       atomic.Bool     // … or keyedReserveSQL (reserve_keyed.go)
	sequenced   atomic.Bool     // … each taking sequence heads too (reserve_sequence.go)
	hints       reserveHints    // where reservations start reading jobs_available_idx (hints.go)
	// dependents: this Store inserted a job with parents, whose release
	// by a completion may put a row below a hint (dependencies.go).
	dependents atomic.Bool
	// noHistory: a job pass saw a queue without history, and its
	// completions carry their deleting part from then on (keephistory.go).
	noHistory atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or a key=value
// connection string) and checks that it answers. It does not check the
// schema: call Migrate, or CheckMigrated when another process migrates.
// Errors name the host, port, database and schema, never the password (a
// url that does not parse is not quoted at all: see ParseConfig); an
// unreachable database gives an error wrapping store.ErrUnavailable.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if err := normalize(&opts); err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	poolerSafe(cfg, opts)
	applyNet(cfg.ConnConfig, opts)
	listenCfg, err := parseListenURL(opts)
	if err != nil {
		return nil, err
	}
	if listenCfg != nil {
		applyNet(listenCfg, opts)
	}
	if opts.Gate != nil {
		installGate(cfg, opts.Gate)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store/pg: %s: %w", describe(cfg.ConnConfig, opts.Schema), err)
	}
	s := newStore(pool, opts, listenCfg)
	s.ownsPool = true
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, s.connectError("store/pg", err)
	}
	return s, nil
}

// New returns a Store on a pool the caller owns: Close leaves the pool
// open. It does not touch the database.
func New(pool *pgxpool.Pool, opts Options) (*Store, error) {
	if err := normalize(&opts); err != nil {
		return nil, err
	}
	if opts.Gate != nil {
		return nil, errors.New("store/pg: Options.Gate needs Open: New cannot configure the connections of a pool it did not make")
	}
	listenCfg, err := parseListenURL(opts)
	if err != nil {
		return nil, err
	}
	return newStore(pool, opts, listenCfg), nil
}

func normalize(opts *Options) error {
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	if err := ValidateSchema(opts.Schema); err != nil {
		return err
	}
	if opts.Clock == nil {
		opts.Clock = clockrng.Real()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	netSettings(opts)
	return nil
}

func newStore(pool *pgxpool.Pool, opts Options, listenCfg *pgx.ConnConfig) *Store {
	cfg := pool.Config()
	s := &Store{
		pool:        pool,
		opts:        opts,
		schema:      opts.Schema,
		ident:       quoteIdent(opts.Schema),
		target:      describe(cfg.ConnConfig, opts.Schema),
		chAvailable: opts.Schema + "_" + string(store.ChannelAvailable),
		chStepdown:  opts.Schema + "_" + string(store.ChannelStepdown),
		chCancel:    opts.Schema + "_" + string(store.ChannelCancel),
		dutyKey:     lockKey("leader duties", opts.Schema),
		migrateKey:  lockKey("migrate", opts.Schema),
		listenCfg:   listenCfg,
		queueKey:    int32(lockKey("queue", opts.Schema)),
		limitKey:    int32(lockKey("queue limit", opts.Schema)),
		sequenceKey: int32(lockKey("sequence", opts.Schema)),
	}
	s.stmt = newStatements(s.sql)
	s.noteControlled() // until a reservation has looked
	return s
}

// describe names where a store points, for error messages: every field of
// the connection but the password.
func describe(c *pgx.ConnConfig, schema string) string {
	var b strings.Builder
	b.WriteString("host=" + c.Host + " port=" + strconv.Itoa(int(c.Port)))
	b.WriteString(" database=" + c.Database + " user=" + c.User + " schema=" + schema)
	return b.String()
}

// Close closes the pool if Open made it. Listen channels end with their
// contexts, not here.
func (s *Store) Close() {
	if s.ownsPool {
		s.pool.Close()
	}
}

// Pool returns the connection pool, for callers that run their own
// transactions and enqueue with InPgxTx.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema returns the name of the schema that holds the tables.
func (s *Store) Schema() string { return s.schema }
