package pg

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
	// tables are the tables the file creates and does not drop again;
	// dropped, those it drops that earlier files created.
	tables, dropped []string
}

// migrations returns the embedded files in version order. They are read
// on first use, not at init: finding the tables each creates runs a
// regular expression over all of their SQL, which cost every program
// importing the package (the simulator among them) ~20M instructions at
// start.
var migrations = sync.OnceValue(func() []migration { return mustLoadMigrations(migrationFiles) })

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
		if i > 0 && version == out[i-1].version {
			return nil, fmt.Errorf("migration files %s and %s share version %d: renumber one", names[i-1], name, version)
		}
		if version != i+1 {
			return nil, fmt.Errorf("migration file %s: version %d, want %d", name, version, i+1)
		}
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		created, dropped := tablesCreated(string(text))
		out = append(out, migration{version: version, name: m[2], sql: string(text), tables: created, dropped: dropped})
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

var (
	createTable = regexp.MustCompile(`(?i)\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
	dropTable   = regexp.MustCompile(`(?i)\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
)

// tablesCreated lists the tables a migration's SQL creates and does not
// drop, so that a schema whose version row outlived its tables is noticed
// without a hand-kept list that a new migration could forget, and those it
// drops without creating them (an earlier migration's).
func tablesCreated(sql string) (created, dropped []string) {
	for _, m := range createTable.FindAllStringSubmatch(sql, -1) {
		created = append(created, strings.ToLower(m[1]))
	}
	for _, m := range dropTable.FindAllStringSubmatch(sql, -1) {
		name := strings.ToLower(m[1])
		if !slices.Contains(created, name) {
			dropped = append(dropped, name)
		}
		created = slices.DeleteFunc(created, func(t string) bool { return t == name })
	}
	return created, dropped
}

// SchemaVersion is the migration version this package's code needs.
func SchemaVersion() int { return len(migrations()) }

// Errors of Migrate and CheckMigrated a caller can test with errors.Is.
var (
	// ErrNotMigrated: the schema, or a migration this code needs, is missing.
	ErrNotMigrated = errors.New("schema not migrated")
	// ErrSchemaNewer: the schema holds a migration this code does not know,
	// written by a newer release; this code must not use it.
	ErrSchemaNewer = errors.New("schema is newer than this code")
	// ErrSchemaDamaged: the schema records a migration whose tables are
	// missing (dropped by hand, or a restore that left them out).
	ErrSchemaDamaged = errors.New("schema is damaged")
)

// Migration names one migration.
type Migration struct {
	Version int
	Name    string
}

func (m Migration) String() string { return fmt.Sprintf("%04d_%s", m.Version, m.Name) }

// MigrateResult says what a migration run did.
type MigrateResult struct {
	// Applied lists the migrations this run applied, in order; it is empty
	// when the schema was already up to date (or another process
	// migrated it meanwhile).
	Applied []Migration
	// Version is the schema's version afterwards: its highest migration.
	Version int
}

// Migrate creates the schema if needed and applies the embedded migrations
// it lacks (see ApplyMigrations).
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.ApplyMigrations(ctx)
	return err
}

// ApplyMigrations creates the schema if needed, applies the embedded
// migrations it lacks, all in one transaction, and reports which and the
// version it left. The transaction first takes a transaction-scoped
// advisory lock (keyed by the schema name), so when many processes migrate
// at once, one applies every missing migration and the others wait and
// then find the schema up to date; a failed migration leaves the schema as
// it was. The lock lives only inside a transaction:
// nothing depends on the session, so migrating works through a pooler in
// transaction mode, and no lock outlives its transaction. A schema that
// holds a migration this code does not know is refused (ErrSchemaNewer)
// and left as it is; so is one that records a migration whose tables are
// gone (ErrSchemaDamaged).
func (s *Store) ApplyMigrations(ctx context.Context) (MigrateResult, error) {
	return s.migrate(ctx, migrations())
}

func (s *Store) migrate(ctx context.Context, list []migration) (MigrateResult, error) {
	res, err := s.applyMissing(ctx, list)
	if err != nil {
		return res, fmt.Errorf("migrate %s: %w", s.target, err)
	}
	return res, nil
}

func (s *Store) applyMissing(ctx context.Context, list []migration) (MigrateResult, error) {
	setup := "CREATE SCHEMA IF NOT EXISTS " + s.ident + ";\n" +
		"CREATE TABLE IF NOT EXISTS " + s.ident + ".schema_migrations (" +
		"version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
	var res MigrateResult
	err := s.migrationTx(ctx, func(db pgx.Tx) error {
		res = MigrateResult{}
		if _, err := db.Exec(ctx, setup); err != nil {
			return fmt.Errorf("create schema and migrations table: %w", s.classify(err))
		}
		applied, err := s.appliedVersions(ctx, db)
		if err != nil {
			return err
		}
		if err := newerThan(applied, list); err != nil {
			return err
		}
		for _, m := range list {
			if slices.Contains(applied, m.version) {
				continue
			}
			if err := s.apply(ctx, db, m); err != nil {
				return err
			}
			res.Applied = append(res.Applied, Migration{Version: m.version, Name: m.name})
			applied = append(applied, m.version)
		}
		res.Version = slices.Max(append(applied, 0))
		return s.checkTables(ctx, db, list, res.Version)
	})
	return res, err
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

// apply runs migration m in db and records it.
func (s *Store) apply(ctx context.Context, db pgx.Tx, m migration) error {
	_, err := db.Exec(ctx, "SELECT set_config('search_path', $1, true)", s.ident)
	if err == nil {
		_, err = db.Exec(ctx, m.sql)
	}
	if err == nil {
		_, err = db.Exec(ctx, s.sql("INSERT INTO {schema}.schema_migrations (version, name) VALUES ($1, $2)"), m.version, m.name)
	}
	if err != nil {
		return fmt.Errorf("apply migration %04d_%s: %w", m.version, m.name, s.classify(err))
	}
	return nil
}

// querier is what reading the schema's state needs: a connection or the
// pool.
type querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
	QueryRow(context.Context, string, ...any) pgx.Row
}

// appliedVersions returns the migrations recorded in the schema, in
// order.
func (s *Store) appliedVersions(ctx context.Context, db querier) ([]int, error) {
	rows, err := db.Query(ctx, s.sql("SELECT version FROM {schema}.schema_migrations ORDER BY version"))
	if err == nil {
		var versions []int
		if versions, err = pgx.CollectRows(rows, pgx.RowTo[int]); err == nil {
			return versions, nil
		}
	}
	return nil, fmt.Errorf("read the schema version: %w", s.classify(err))
}

// newerThan refuses a schema that records a migration list does not hold.
func newerThan(applied []int, list []migration) error {
	if len(applied) == 0 || applied[len(applied)-1] <= len(list) {
		return nil
	}
	return fmt.Errorf("%w: it is at migration %d, and this code knows migrations up to %d only; "+
		"upgrade tickwork to the release that migrated it", ErrSchemaNewer, applied[len(applied)-1], len(list))
}

// checkTables reports the tables that the migrations up to version created
// and the schema lacks.
func (s *Store) checkTables(ctx context.Context, db querier, list []migration, version int) error {
	var want []string
	for _, m := range list[:min(version, len(list))] {
		want = slices.DeleteFunc(want, func(t string) bool { return slices.Contains(m.dropped, t) })
		want = append(want, m.tables...)
	}
	var missing []string
	err := db.QueryRow(ctx, "SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM unnest($1::text[]) t WHERE to_regclass($2 || '.' || quote_ident(t)) IS NULL",
		want, s.ident).Scan(&missing)
	if err != nil {
		return fmt.Errorf("check the tables: %w", s.classify(err))
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: it records migration %d but lacks table %s; restore them, or drop the schema and migrate again",
			ErrSchemaDamaged, version, strings.Join(missing, ", "))
	}
	return nil
}

// CheckMigrated reports whether the schema exists, holds exactly the
// migrations this code knows and their tables, for processes that leave
// migrating to another. A schema that lacks migrations is ErrNotMigrated,
// one with migrations this code does not know ErrSchemaNewer, one that
// lacks tables ErrSchemaDamaged. Its errors name the host, port, database
// and schema.
func (s *Store) CheckMigrated(ctx context.Context) error {
	applied, err := s.appliedVersions(ctx, s.pool)
	if err == nil {
		err = newerThan(applied, migrations())
	}
	if err == nil && len(applied) < SchemaVersion() {
		v := slices.Max(append(applied, 0))
		err = fmt.Errorf("%w: it is at migration %d, this code needs %d (call Migrate)", ErrNotMigrated, v, SchemaVersion())
	}
	if err == nil {
		err = s.checkTables(ctx, s.pool, migrations(), SchemaVersion())
	}
	if err != nil {
		return fmt.Errorf("check schema %s: %w", s.target, err)
	}
	return nil
}
