package pg

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// MigrationScript returns the SQL that ApplyMigrations would run on the
// schema now, as one script psql can run, and the migrations it holds:
// those the schema lacks (all of them when it does not exist yet). It
// changes nothing. Each migration is a transaction of its own that also
// records itself in schema_migrations, as ApplyMigrations does; unlike
// ApplyMigrations, the script takes no advisory lock.
func (s *Store) MigrationScript(ctx context.Context) (string, []Migration, error) {
	var exists bool
	err := s.pool.QueryRow(ctx, "SELECT to_regclass($1 || '.schema_migrations') IS NOT NULL", s.ident).Scan(&exists)
	if err != nil {
		return "", nil, fmt.Errorf("print migrations for %s: %w", s.target, s.classify(err))
	}
	var applied []int
	if exists {
		if applied, err = s.appliedVersions(ctx, s.pool); err != nil {
			return "", nil, fmt.Errorf("print migrations for %s: %w", s.target, err)
		}
		if err := newerThan(applied, migrations()); err != nil {
			return "", nil, fmt.Errorf("print migrations for %s: %w", s.target, err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE SCHEMA IF NOT EXISTS %s;\n", s.ident)
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());\n", s.ident)
	var pending []Migration
	for _, m := range migrations() {
		if slices.Contains(applied, m.version) {
			continue
		}
		pending = append(pending, Migration{Version: m.version, Name: m.name})
		fmt.Fprintf(&b, "\n-- migration %04d_%s\nBEGIN;\nSET LOCAL search_path TO %s;\n%s", m.version, m.name, s.ident, m.sql)
		if !strings.HasSuffix(m.sql, "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "INSERT INTO %s.schema_migrations (version, name) VALUES (%d, '%s');\nCOMMIT;\n", s.ident, m.version, m.name)
	}
	return b.String(), pending, nil
}
