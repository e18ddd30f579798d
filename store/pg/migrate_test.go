package pg_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// openUnmigrated opens a store on a fresh schema that does not exist yet.
func openUnmigrated(t *testing.T) *pg.Store {
	t.Helper()
	s, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: pgtest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// connect opens a plain connection to the test database.
func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// versions returns the rows of the schema's migrations table.
func versions(t *testing.T, s *pg.Store) []int {
	t.Helper()
	rows, err := s.Pool().Query(t.Context(), "SELECT version FROM "+pgx.Identifier{s.Schema(), "schema_migrations"}.Sanitize()+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantVersions(t *testing.T, s *pg.Store, n int) {
	t.Helper()
	got := versions(t, s)
	if len(got) != n {
		t.Fatalf("schema_migrations holds versions %v, want 1..%d", got, n)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("schema_migrations holds versions %v, want 1..%d", got, n)
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	s := pgtest.Open(t, nil)
	w := newULID(t)
	if err := s.InTx(t.Context(), func(tx store.Tx) error { return tx.RegisterWorker(t.Context(), w) }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Migrate(t.Context()); err != nil {
			t.Fatalf("migrating a migrated schema again: %v", err)
		}
	}
	wantVersions(t, s, pg.SchemaVersion())
	if err := s.CheckMigrated(t.Context()); err != nil {
		t.Fatal(err)
	}
	var workers []store.Worker
	if err := s.InTx(t.Context(), func(tx store.Tx) (err error) { workers, err = tx.ListWorkers(t.Context()); return err }); err != nil {
		t.Fatal(err)
	}
	if len(workers) != 1 || workers[0].ID != w {
		t.Fatalf("after migrating again the workers are %v, want the one registered before", workers)
	}
}

// TestConcurrentMigrateWaits holds the migration lock while two stores
// migrate the same fresh schema: both must wait (seen in pg_locks) without
// creating anything, then both succeed once the lock is released.
func TestConcurrentMigrateWaits(t *testing.T) {
	a, b := openUnmigrated(t), (*pg.Store)(nil)
	b, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: a.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	holder := connect(t)
	key := pg.MigrateKey(a)
	if _, err := holder.Exec(t.Context(), "SELECT pg_advisory_lock($1)", key); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*pg.Store{a, b} {
		wg.Go(func() { errs[i] = s.Migrate(t.Context()) })
	}
	waitFor(t, "both migrations waiting for the lock", func() bool {
		var waiting int
		err := holder.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND ((classid::bigint << 32) | objid::bigint) = $1`, key).Scan(&waiting)
		return err == nil && waiting == 2
	})
	var exists bool
	if err := holder.QueryRow(t.Context(), "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", a.Schema()).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatal("the schema was created while the migration lock was held elsewhere")
	}
	if _, err := holder.Exec(t.Context(), "SELECT pg_advisory_unlock($1)", key); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migration %d: %v", i, err)
		}
	}
	wantVersions(t, a, pg.SchemaVersion())
}

// TestManyMigrateAtOnce starts several migrations of one fresh schema at
// the same moment, as workers starting together do.
func TestManyMigrateAtOnce(t *testing.T) {
	first := openUnmigrated(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: first.Schema()})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			errs[i] = s.Migrate(t.Context())
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	wantVersions(t, first, pg.SchemaVersion())
}

// TestMigrateForward brings a schema at an older migration up to date and
// keeps its rows: the embedded files are version 1..n, and a test file
// n+1 stands for a migration a later release adds.
func TestMigrateForward(t *testing.T) {
	t.Parallel() // a schema of its own
	s := openUnmigrated(t)
	files := fstest.MapFS{}
	embedded, err := fs.Glob(pg.EmbeddedMigrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range embedded {
		data, err := fs.ReadFile(pg.EmbeddedMigrations, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	if err := s.CheckMigrated(t.Context()); err == nil || !strings.Contains(err.Error(), "not migrated") {
		t.Fatalf("CheckMigrated on a missing schema = %v, want an error saying it is not migrated", err)
	}
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	id := newULID(t)
	insert(t, s, store.NewJob{ID: id, Queue: "q", Payload: []byte(`{"kept": true}`)})

	next := len(embedded) + 1
	files[migrationPath(next, "add_test_column")] = &fstest.MapFile{Data: []byte(
		"ALTER TABLE jobs ADD COLUMN test_column integer NOT NULL DEFAULT 7;\nCREATE TABLE test_extra (id integer);")}
	res, err := pg.MigrateFiles(t.Context(), s, files)
	if err != nil {
		t.Fatalf("migrating forward: %v", err)
	}
	if len(res.Applied) != 1 || res.Applied[0] != (pg.Migration{Version: next, Name: "add_test_column"}) || res.Version != next {
		t.Fatalf("migrating forward reports %+v, want migration %d applied and version %d", res, next, next)
	}
	wantVersions(t, s, next)
	var column int
	var payload string
	err = s.Pool().QueryRow(t.Context(), "SELECT test_column, payload::text FROM "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()).Scan(&column, &payload)
	if err != nil || column != 7 || payload != `{"kept": true}` {
		t.Fatalf("after migrating forward the job row reads (%d, %s, %v), want (7, {\"kept\": true}, nil)", column, payload, err)
	}
	// This code knows migrations up to next-1 only: it refuses the newer
	// schema, to use or to migrate, and changes nothing.
	for what, err := range map[string]error{"CheckMigrated": s.CheckMigrated(t.Context()), "Migrate": s.Migrate(t.Context())} {
		if !errors.Is(err, pg.ErrSchemaNewer) || !strings.Contains(err.Error(), fmt.Sprintf("at migration %d", next)) || !strings.Contains(err.Error(), "upgrade") {
			t.Errorf("%s of a schema newer than the code = %v, want ErrSchemaNewer naming its version", what, err)
		}
	}
	wantVersions(t, s, next)
}

func TestApplyMigrationsReportsWhatItApplied(t *testing.T) {
	s := openUnmigrated(t)
	res, err := s.ApplyMigrations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != pg.SchemaVersion() || res.Applied[0] != (pg.Migration{Version: 1, Name: "init"}) || res.Version != pg.SchemaVersion() {
		t.Fatalf("first migration reports %+v, want every embedded migration applied", res)
	}
	res, err = s.ApplyMigrations(t.Context())
	if err != nil || len(res.Applied) != 0 || res.Version != pg.SchemaVersion() {
		t.Fatalf("second migration reports %+v, %v; want nothing applied at version %d", res, err, pg.SchemaVersion())
	}
}

// TestVersionRowWithoutItsTables: a schema whose migration is recorded but
// whose table was dropped is reported, by Migrate and CheckMigrated alike,
// rather than taken as up to date.
func TestVersionRowWithoutItsTables(t *testing.T) {
	s := pgtest.Open(t, nil)
	if _, err := s.Pool().Exec(t.Context(), "DROP TABLE "+pgx.Identifier{s.Schema(), "jobs"}.Sanitize()+" CASCADE"); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{"CheckMigrated": s.CheckMigrated(t.Context()), "Migrate": s.Migrate(t.Context())} {
		if !errors.Is(err, pg.ErrSchemaDamaged) || !strings.Contains(err.Error(), "lacks table jobs") || !strings.Contains(err.Error(), s.Schema()) {
			t.Errorf("%s of a schema without its jobs table = %v, want ErrSchemaDamaged naming the table and schema", what, err)
		}
	}
}

func TestTablesCreatedAreReadFromTheMigrations(t *testing.T) {
	got := pg.TablesCreated()
	if len(got) == 0 || !slices.Equal(got[0], []string{"workers", "leader", "jobs", "schedules"}) {
		t.Fatalf("tables of the embedded migrations: %q, want 0001 to create workers, leader, jobs, schedules", got)
	}
}

// TestATableDroppedLaterIsNotRequired: migration 0013 drops 0011's
// queue_run_slots, so the check of a migrated schema no longer asks for
// it (it did, and took every schema at version 13 for a damaged one).
func TestATableDroppedLaterIsNotRequired(t *testing.T) {
	created, dropped := pg.TablesCreated(), pg.TablesDropped()
	if len(created) < 13 || !slices.Contains(created[10], "queue_run_slots") || !slices.Equal(dropped[12], []string{"queue_run_slots"}) {
		t.Fatalf("0011 creates %q and 0013 drops %q, want queue_run_slots", created[10], dropped[12])
	}
	s := pgtest.Open(t, nil)
	if err := s.CheckMigrated(t.Context()); err != nil {
		t.Fatalf("CheckMigrated of a schema migrated to the last version: %v", err)
	}
}

func migrationPath(version int, name string) string {
	v := []byte("0000")
	for i, n := 3, version; i >= 0; i, n = i-1, n/10 {
		v[i] = byte('0' + n%10)
	}
	return "migrations/" + string(v) + "_" + name + ".sql"
}

func TestCheckMigratedReportsAnOlderSchema(t *testing.T) {
	t.Parallel() // a schema of its own
	s := openUnmigrated(t)
	// No migration files: the schema and its migrations table exist, at
	// version 0.
	if _, err := pg.MigrateFiles(t.Context(), s, fstest.MapFS{}); err != nil {
		t.Fatal(err)
	}
	err := s.CheckMigrated(t.Context())
	if err == nil || !strings.Contains(err.Error(), "at migration 0") || !strings.Contains(err.Error(), s.Schema()) {
		t.Fatalf("CheckMigrated on a schema at version 0 = %v, want an error naming the schema and its version", err)
	}
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckMigrated(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestMigrationFilesMustBeNumberedWithoutGaps(t *testing.T) {
	sql := &fstest.MapFile{Data: []byte("SELECT 1")}
	for name, files := range map[string]fstest.MapFS{
		"gap":      {"migrations/0001_a.sql": sql, "migrations/0003_c.sql": sql},
		"bad name": {"migrations/0001_a.sql": sql, "migrations/2_b.sql": sql},
		"no start": {"migrations/0002_b.sql": sql},
		// Two branches that took the same number, merged.
		"shared": {"migrations/0001_a.sql": sql, "migrations/0002_b.sql": sql, "migrations/0002_c.sql": sql},
	} {
		if _, err := pg.LoadMigrations(files); err == nil {
			t.Errorf("%s: loading %v succeeded, want an error", name, files)
		}
	}
	shared := fstest.MapFS{"migrations/0001_a.sql": sql, "migrations/0001_b.sql": sql}
	if _, err := pg.LoadMigrations(shared); err == nil || !strings.Contains(err.Error(), "share version 1") {
		t.Errorf("two files numbered 0001: %v, want an error naming the shared version", err)
	}
	n, err := pg.LoadMigrations(pg.EmbeddedMigrations)
	if err != nil || n != pg.SchemaVersion() || n == 0 {
		t.Fatalf("embedded migrations: %d, %v; want %d files", n, err, pg.SchemaVersion())
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline. Tests only: the store itself never waits on the wall clock.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDropSchemaAndDeleteAllRows(t *testing.T) {
	s := openUnmigrated(t)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	id := newULID(t)
	insert(t, s, store.NewJob{ID: id, Queue: "q", Payload: []byte(`1`)})
	if err := s.DeleteAllRows(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := getJob(t, s, id); ok {
		t.Fatal("DeleteAllRows left a job")
	}
	wantVersions(t, s, pg.SchemaVersion())
	if err := s.DropSchema(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckMigrated(t.Context()); err == nil || !strings.Contains(err.Error(), "not migrated") {
		t.Fatalf("CheckMigrated after DropSchema = %v, want not migrated", err)
	}
}
