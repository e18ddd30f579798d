package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DeleteAllRows empties every table of the store's schema, keeping the
// schema and its migrations. Tools that run many independent scenarios on
// one schema (the simulator, test suites) use it: emptying costs far less
// than creating and migrating a schema.
func (s *Store) DeleteAllRows(ctx context.Context) error {
	q := ""
	for _, table := range []string{"schedules", "job_waits", "batches", "jobs", "leader", "workers", "queue_rate_slots", "queues", "vacuums"} {
		q += "DELETE FROM " + pgx.Identifier{s.schema, table}.Sanitize() + ";"
	}
	if _, err := s.pool.Exec(ctx, q); err != nil {
		return fmt.Errorf("empty schema %s: %w", s.schema, err)
	}
	s.hints.reset() // the next scenario starts as on a new Store
	return nil
}

// DropSchema drops the store's schema with everything in it. It is for
// tools that made a throwaway schema; production never calls it.
func (s *Store) DropSchema(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+s.ident+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", s.schema, err)
	}
	return nil
}
