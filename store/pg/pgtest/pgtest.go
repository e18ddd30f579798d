// Package pgtest gives tests a PostgreSQL database and a fresh schema each,
// so that test packages run in parallel against one server.
//
// Every test that needs PostgreSQL finds it the same way, first match
// wins:
//
//  1. DATABASE_URL, when it is set;
//  2. postgres://postgres@127.0.0.1:5432/test?sslmode=disable, when it
//     answers (a developer's local server);
//  3. a PostgreSQL container started with dockertest, once per test
//     process; Main removes it when the tests end;
//  4. none: the test fails when the CI environment variable is set and is
//     skipped otherwise, with a message saying what was tried.
//
// A package using pgtest should have
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// which also checks for leaked goroutines (goleak).
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

	"github.com/tickwork/tickwork/internal/localpg"
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
	return world.url(t)
}

// finder is where URL looks for a database; tests replace its parts.
type finder struct {
	getenv    func(string) string
	local     func() (string, error) // DATABASE_URL or the local server
	container func() (string, error) // a dockertest container
}

var world = finder{getenv: os.Getenv, local: localURL, container: containerURL}

// find returns the first database of the package comment's list, or an
// error naming everything it tried.
func (f finder) find() (string, error) {
	url, localErr := f.local()
	if localErr == nil {
		return url, nil
	}
	url, dockerErr := f.container()
	if dockerErr == nil {
		return url, nil
	}
	return "", fmt.Errorf("no PostgreSQL for this test: %v; dockertest: %v. Set DATABASE_URL, start PostgreSQL on 127.0.0.1:5432 (user postgres, database test) or make Docker available",
		localErr, dockerErr)
}

func (f finder) url(t testing.TB) string {
	t.Helper()
	url, err := f.find()
	if err == nil {
		return url
	}
	if f.getenv("CI") != "" {
		t.Fatal(err.Error())
	}
	t.Skip(err.Error())
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
//
// The store is opened here, on t, so that a missing database skips or
// fails t itself: opened later from a subtest, the parent's Skip would end
// the subtest's goroutine instead.
func Recycler(t testing.TB) func(t *testing.T, now func() time.Time) store.Store {
	t.Helper()
	var clock atomic.Pointer[func() time.Time]
	s := OpenWith(t, pg.Options{Now: func() time.Time {
		now := clock.Load()
		if now == nil {
			panic("pgtest: the Recycler's store was used before the opener gave it a clock")
		}
		return (*now)()
	}})
	return func(sub *testing.T, now func() time.Time) store.Store {
		sub.Helper()
		if now == nil {
			sub.Fatal("pgtest: Recycler needs a clock")
		}
		clock.Store(&now)
		if err := s.DeleteAllRows(sub.Context()); err != nil {
			sub.Fatalf("pgtest: %v", err)
		}
		return s
	}
}

// Main runs the package's tests, then the package's own cleanups, removes
// the container if this process started one, checks that no goroutine
// leaked, and exits.
func Main(m *testing.M, cleanups ...func()) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	if err := purge(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: remove the PostgreSQL container:", err)
		code = max(code, 1)
	}
	if code == 0 {
		code = verifyNoLeaks()
	}
	os.Exit(code)
}

// localOnce probes the local server once: every test of a process gets the
// same answer.
var localOnce struct {
	sync.Once
	url string
	err error
}

func localURL() (string, error) {
	if os.Getenv("DATABASE_URL") != "" {
		return localpg.Default.Find(context.Background()) // unprobed, read every time: a test may set it
	}
	localOnce.Do(func() { localOnce.url, localOnce.err = localpg.Default.Find(context.Background()) })
	return localOnce.url, localOnce.err
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
