// Package pgtest gives tests a PostgreSQL database and a fresh schema each,
// so that test packages run in parallel against one server.
//
// The database comes from DATABASE_URL. Without it, the first test that
// asks starts a PostgreSQL container with dockertest, once per test
// process; Main removes it when the tests end, so a package using pgtest
// should have
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// which also checks for leaked goroutines (goleak). Without DATABASE_URL
// and without Docker, tests fail when the CI environment variable is set
// and are skipped otherwise, with a message saying how to provide a
// database.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
)

// SchemaPrefix starts every schema Schema creates, so leftovers of crashed
// test runs are easy to find and drop.
const SchemaPrefix = "twtest_"

// URL returns the URL of a test database (see the package comment). It
// fails the test in CI and skips it elsewhere when there is none.
func URL(t testing.TB) string {
	t.Helper()
	if url := os.Getenv("DATABASE_URL"); url != "" {
		return url
	}
	url, err := containerURL()
	if err == nil {
		return url
	}
	msg := "no PostgreSQL for this test: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) or make Docker available to dockertest: " + err.Error()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Schema returns a schema name no other test uses (the schema itself is not
// created) and drops that schema, with everything in it, when the test
// ends.
func Schema(t testing.TB) string {
	t.Helper()
	url := URL(t)
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("pgtest: random schema name: %v", err)
	}
	name := SchemaPrefix + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		if err := dropSchema(url, name); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return name
}

func dropSchema(url, name string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	return err
}

// Open returns a store on a fresh, migrated schema, closed and dropped when
// the test ends. now is the store's clock; nil means the database's.
func Open(t testing.TB, now func() time.Time) *pg.Store {
	t.Helper()
	return OpenWith(t, pg.Options{Now: now})
}

// OpenWith is Open with more options; opts.Schema is replaced by a fresh
// schema.
func OpenWith(t testing.TB, opts pg.Options) *pg.Store {
	t.Helper()
	return open(t, opts, withoutDurability)
}

// OpenDurable is OpenWith for benchmarks: its connections keep the
// server's synchronous_commit (or what PGOPTIONS sets), so that every
// commit waits for what it waits for in production, and it logs that
// setting, which the figures depend on.
func OpenDurable(b testing.TB, opts pg.Options) *pg.Store {
	b.Helper()
	s := open(b, opts, func(url string) string { return url })
	var setting string
	if err := s.Pool().QueryRow(context.Background(), "SHOW synchronous_commit").Scan(&setting); err != nil {
		b.Fatalf("pgtest: read synchronous_commit: %v", err)
	}
	b.Logf("commits as configured: synchronous_commit=%s (the server's setting, or PGOPTIONS's; pgtest leaves it alone)", setting)
	return s
}

// open opens a store on a fresh, migrated schema at the URL that conn
// makes of the test database's.
func open(t testing.TB, opts pg.Options, conn func(url string) string) *pg.Store {
	t.Helper()
	url := URL(t)
	opts.Schema = Schema(t)
	ctx := context.Background()
	s, err := pg.Open(ctx, conn(url), opts)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(s.Close) // runs before the schema is dropped
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return s
}

// withoutDurability adds synchronous_commit=off to the connection settings:
// a test does not need its commits to survive a crash, and not waiting for
// the disk on every commit makes store tests several times faster.
func withoutDurability(conn string) string {
	return pg.WithParam(conn, "synchronous_commit", "off")
}

// Recycler returns an opener for suites that open many stores one after
// another (storetest.Run, storetest.RunDifferential): every call returns the
// same store on one migrated schema, emptied first, with now as its clock.
// Emptying a schema costs far less than creating and migrating one. The
// store must not be used after the next call; now must not be nil.
func Recycler(t testing.TB) func(t *testing.T, now func() time.Time) store.Store {
	var clock atomic.Pointer[func() time.Time]
	var s *pg.Store
	return func(sub *testing.T, now func() time.Time) store.Store {
		sub.Helper()
		if now == nil {
			sub.Fatal("pgtest: Recycler needs a clock")
		}
		clock.Store(&now)
		if s == nil {
			s = OpenWith(t, pg.Options{Now: func() time.Time { return (*clock.Load())() }})
			return s
		}
		if err := s.DeleteAllRows(sub.Context()); err != nil {
			sub.Fatalf("pgtest: %v", err)
		}
		return s
	}
}

// Main runs the package's tests, removes the container if this process
// started one, checks that no goroutine leaked, and exits.
func Main(m *testing.M) {
	code := m.Run()
	if err := purge(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: remove the PostgreSQL container:", err)
		code = max(code, 1)
	}
	if code == 0 {
		code = verifyNoLeaks()
	}
	os.Exit(code)
}

// once guards the container start: all tests of a process share it.
var once struct {
	sync.Once
	url string
	err error
}

func containerURL() (string, error) {
	once.Do(func() { once.url, once.err = startContainer() })
	return once.url, once.err
}
