package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// DeadJobRows reads n_dead_tup of jobs from the statistics, which the
// server updates when a backend reports its writes (at most about once a
// second per connection) and not at all while a transaction is open: a
// lagging count, enough to decide whether a vacuum is worth its cost.
func (t *tx) DeadJobRows(ctx context.Context) (int64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	var n int64
	if err := t.db.QueryRow(ctx, `SELECT pg_stat_get_dead_tuples($1::regclass)`, t.s.jobsTable()).Scan(&n); err != nil {
		return 0, t.fail(err, "count dead job rows")
	}
	return n, nil
}

func (t *tx) LastVacuum(ctx context.Context) (store.Vacuum, error) {
	if err := t.check(); err != nil {
		return store.Vacuum{}, err
	}
	var v store.Vacuum
	var at pgtype.Timestamptz
	err := t.db.QueryRow(ctx, t.s.sql(`SELECT started_at, dead_rows FROM {schema}.vacuums WHERE relation = 'jobs'`)).Scan(&at, &v.DeadRows)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Vacuum{}, fmt.Errorf("last vacuum: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Vacuum{}, t.fail(err, "last vacuum")
	}
	v.StartedAt = toTime(at)
	return v, nil
}

func (t *tx) RecordVacuum(ctx context.Context, deadRows int64) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := rules.ValidateDeadRows(deadRows); err != nil {
		return err
	}
	_, err := t.db.Exec(ctx, t.s.sql(`
		INSERT INTO {schema}.vacuums (relation, started_at, dead_rows) VALUES ('jobs', coalesce($1::timestamptz, now()), $2)
		ON CONFLICT (relation) DO UPDATE SET started_at = excluded.started_at, dead_rows = excluded.dead_rows`),
		t.nowArg(), deadRows)
	if err != nil {
		return t.fail(err, "record vacuum of %d dead rows", deadRows)
	}
	return nil
}

// VacuumJobs runs VACUUM (ANALYZE) on jobs, on a connection of the pool
// outside any transaction (VACUUM refuses to run in one), as one simple
// query so that a pooler in transaction mode passes it through.
func (s *Store) VacuumJobs(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "VACUUM (ANALYZE) "+s.jobsTable(), pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("vacuum %s.jobs on %s: %w", s.schema, s.target, s.classify(err))
	}
	return nil
}

var _ store.Vacuumer = (*Store)(nil)

// jobsTable is the jobs table's qualified, quoted name.
func (s *Store) jobsTable() string { return s.ident + ".jobs" }
