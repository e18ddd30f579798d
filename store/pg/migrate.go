package pg

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded files in version order.
var migrations = mustLoadMigrations(migrationFiles)

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// loadMigrations reads NNNN_name.sql files whose versions run 1, 2, 3...
// without a gap, so that a missing or misnamed file cannot be skipped.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for i, name := range names { // fs.Glob sorts
		m := migrationName.FindStringSubmatch(path.Base(name))
		if m == nil {
			return nil, fmt.Errorf("migration file %s: name must be NNNN_name.sql", name)
		}
		version, _ := strconv.Atoi(m[1])
		if version != i+1 {
			return nil, fmt.Errorf("migration file %s: version %d, want %d", name, version, i+1)
		}
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: m[2], sql: string(text)})
	}
	return out, nil
}

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic("store/pg: " + err.Error())
	}
	return ms
}

// SchemaVersion is the migration version this package's code needs.
func SchemaVersion() int { return len(migrations) }

// Migrate creates the schema if needed and applies the embedded migrations
// it lacks, each in its own transaction. Each of those transactions first
// takes a transaction-scoped advisory lock (keyed by the schema name), so
// when many processes migrate at once, one applies a migration and the
// others wait and then find it applied. The lock lives only inside a
// transaction: nothing depends on the session, so Migrate works through a
// pooler in transaction mode, and no lock outlives its transaction.
// Migrating a schema that is up to date, or newer than this code, changes
// nothing.
func (s *Store) Migrate(ctx context.Context) error {
	return s.migrate(ctx, migrations)
}

func (s *Store) migrate(ctx context.Context, list []migration) error {
	setup := "CREATE SCHEMA IF NOT EXISTS " + s.ident + ";\n" +
		"CREATE TABLE IF NOT EXISTS " + s.ident + ".schema_migrations (" +
		"version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
	err := s.migrationTx(ctx, func(db pgx.Tx) error {
		if _, err := db.Exec(ctx, setup); err != nil {
			return fmt.Errorf("create schema and migrations table: %w", s.classify(err))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate %s: %w", s.target, err)
	}
	for _, m := range list {
		if err := s.migrationTx(ctx, func(db pgx.Tx) error { return s.applyIfMissing(ctx, db, m) }); err != nil {
			return fmt.Errorf("migrate %s: %w", s.target, err)
		}
	}
	return nil
}

// migrationTx runs fn in a transaction that holds the migration lock.
func (s *Store) migrationTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(db pgx.Tx) error {
		if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.migrateKey); err != nil {
			return fmt.Errorf("take the migration lock: %w", s.classify(err))
		}
		return fn(db)
	})
}

// applyIfMissing applies m unless the schema already has it.
func (s *Store) applyIfMissing(ctx context.Context, db pgx.Tx, m migration) error {
	current, err := s.version(ctx, db)
	if err != nil || m.version <= current {
		return err
	}
	if _, err := db.Exec(ctx, "SELECT set_config('search_path', $1, true)", s.ident); err != nil {
		return fmt.Errorf("apply migration %04d_%s: %w", m.version, m.name, s.classify(err))
	}
	if _, err := db.Exec(ctx, m.sql); err != nil {
		return fmt.Errorf("apply migration %04d_%s: %w", m.version, m.name, s.classify(err))
	}
	_, err = db.Exec(ctx, s.sql("INSERT INTO {schema}.schema_migrations (version, name) VALUES ($1, $2)"), m.version, m.name)
	if err != nil {
		return fmt.Errorf("apply migration %04d_%s: %w", m.version, m.name, s.classify(err))
	}
	return nil
}

// version returns the highest migration applied to the schema.
func (s *Store) version(ctx context.Context, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := conn.QueryRow(ctx, s.sql("SELECT coalesce(max(version), 0) FROM {schema}.schema_migrations")).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read the schema version: %w", s.classify(err))
	}
	return v, nil
}

// CheckMigrated reports whether the schema exists and holds at least the
// migrations this code needs, for processes that leave migrating to
// another. Its errors name the host, port, database and schema.
func (s *Store) CheckMigrated(ctx context.Context) error {
	v, err := s.version(ctx, s.pool)
	if err != nil {
		return fmt.Errorf("check schema: %w", err)
	}
	if v < SchemaVersion() {
		return fmt.Errorf("check schema: %s is at migration %d, this code needs %d (call Migrate)", s.target, v, SchemaVersion())
	}
	return nil
}
