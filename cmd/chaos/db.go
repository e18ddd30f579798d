package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/store/pg"
)

// driverDB is the chaos driver's own connection pool: it reads the store
// time for the events the driver logs, terminates the workers' backends
// and reads the final rows. Its connections carry their own
// application_name, so that terminations never aim at them.
type driverDB struct {
	pool   *pgxpool.Pool // the store's
	store  *pg.Store     // reads the final rows, drops the schema
	schema string
}

func openDriverDB(ctx context.Context, dbURL, schema string) (*driverDB, error) {
	st, err := pg.Open(ctx, withAppName(dbURL, "chaos-"+schema+"-driver"), pg.Options{Schema: schema})
	if err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	return &driverDB{pool: st.Pool(), store: st, schema: schema}, nil
}

// close closes the pool too: pg.Open made the store its owner.
func (d *driverDB) close() { d.store.Close() }

// table is a table of the run's schema, quoted.
func (d *driverDB) table(name string) string { return pgx.Identifier{d.schema, name}.Sanitize() }

// retry runs fn until it succeeds, ctx ends or a minute passed: the driver
// outlives a PostgreSQL restart.
func retry(ctx context.Context, what string, fn func(context.Context) error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", what, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// now returns the database's clock, the time every history event carries.
func (d *driverDB) now(ctx context.Context) (time.Time, error) {
	var t time.Time
	err := retry(ctx, "read the database clock", func(ctx context.Context) error {
		return d.pool.QueryRow(ctx, "SELECT now()").Scan(&t)
	})
	return t, err
}

// terminate ends every backend whose application_name is among names and
// returns how many it ended.
func (d *driverDB) terminate(ctx context.Context, names []string) (int, error) {
	var n int
	err := d.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE application_name = ANY($1) AND pid <> pg_backend_pid()`, names).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("terminate the backends of %v: %w", names, err)
	}
	return n, nil
}

// settled reports whether every job has ended but each schedule's next
// run, which must be waiting (attempt 0, scheduled) at least margin ahead
// of the database's clock, so that no leader promotes it before the
// workers are shut down. It also returns the number of rows not settled.
func (d *driverDB) settled(ctx context.Context, margin time.Duration) (bool, int, error) {
	var open, early int
	err := d.pool.QueryRow(ctx, `
		WITH next AS (SELECT last_scheduled_job_id AS id FROM `+d.table("schedules")+`)
		SELECT count(*) FILTER (WHERE id NOT IN (SELECT id FROM next WHERE id IS NOT NULL)),
		       count(*) FILTER (WHERE id IN (SELECT id FROM next) AND
		                        (status <> 'scheduled' OR attempt <> 0 OR scheduled_at < now() + $1::interval))
		FROM `+d.table("jobs")+` WHERE status IN ('scheduled', 'available', 'running')`, margin).Scan(&open, &early)
	return err == nil && open == 0 && early == 0, open + early, err
}
