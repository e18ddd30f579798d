package pgbouncertest_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgbouncertest"
	"github.com/tickwork/tickwork/store/pg/pgtest"
	"github.com/tickwork/tickwork/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clientConns is the store's pool size: more client connections than the
// bouncer has server connections, so transactions move between them.
const clientConns = 3 * pgbouncertest.ServerConns

// openThrough opens a store on a fresh schema through bouncer and migrates
// it through the bouncer too.
func openThrough(t *testing.T, bouncer string, opts pg.Options) *pg.Store {
	t.Helper()
	opts.Schema = pgtest.Schema(t)
	opts.MaxConns = clientConns
	s, err := pg.Open(context.Background(), bouncer, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate through pgbouncer: %v", err)
	}
	return s
}

// TestConformanceThroughPgBouncer runs the store suite with every
// statement going through PgBouncer in transaction mode, and LISTEN on a
// direct connection.
func TestConformanceThroughPgBouncer(t *testing.T) {
	long.Test(t, "the conformance suite again, through PgBouncer")
	direct := pgtest.URL(t)
	bouncer := pgbouncertest.Start(t, direct)
	var clock atomic.Pointer[func() time.Time]
	s := openThrough(t, bouncer, pg.Options{
		TransactionPooling: true,
		ListenURL:          direct,
		Now:                func() time.Time { return (*clock.Load())() },
	})
	fresh := true
	storetest.Run(t, func(sub *testing.T, now func() time.Time) store.Store {
		clock.Store(&now)
		if !fresh {
			if err := s.DeleteAllRows(sub.Context()); err != nil {
				sub.Fatal(err)
			}
		}
		fresh = false
		return s
	})
}

// TestStatementModeThroughPgBouncer shows why TransactionPooling exists:
// pgx's default named prepared statements break once transactions of
// several client connections share server connections, and the store's
// pooler-safe mode does not.
func TestStatementModeThroughPgBouncer(t *testing.T) {
	bouncer := pgbouncertest.Start(t, pgtest.URL(t))
	for _, pooling := range []bool{false, true} {
		s := openThrough(t, bouncer, pg.Options{TransactionPooling: pooling})
		err := sameQueryOnEveryConn(t, s)
		switch {
		case pooling && err != nil:
			t.Errorf("with TransactionPooling: %v", err)
		case !pooling && (err == nil || !strings.Contains(err.Error(), "prepared statement")):
			t.Errorf("without TransactionPooling: got %v, want a prepared statement error (is the bouncer in transaction mode?)", err)
		}
	}
}

// sameQueryOnEveryConn runs one parameterized query on each of the pool's
// connections in turn, a few rounds, and returns the first error.
func sameQueryOnEveryConn(t *testing.T, s *pg.Store) error {
	ctx := t.Context()
	for range 3 {
		for range clientConns {
			conns := make([]interface{ Release() }, 0, clientConns)
			for i := range clientConns {
				c, err := s.Pool().Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				var n int
				if err := c.QueryRow(ctx, "SELECT $1::int", i).Scan(&n); err != nil {
					for _, c := range conns {
						c.Release()
					}
					return err
				}
			}
			for _, c := range conns {
				c.Release()
			}
		}
	}
	return nil
}

// TestListenThroughPgBouncerNeedsListenURL: without a direct URL, Listen
// says it cannot listen instead of listening where nothing arrives.
func TestListenThroughPgBouncerNeedsListenURL(t *testing.T) {
	bouncer := pgbouncertest.Start(t, pgtest.URL(t))
	s := openThrough(t, bouncer, pg.Options{TransactionPooling: true})
	ch, err := s.Listen(t.Context())
	if !errors.Is(err, pg.ErrNoListen) || ch != nil {
		t.Fatalf("Listen = %v, %v; want ErrNoListen", ch, err)
	}
}
