package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Finished rows written with SQL, shaped as tickwork leaves a no-op job of
// queue noop once completed (enqueued with EnqueueMany, reserved, and
// completed by a worker; seedfinished_test.go compares the two), so that a
// history of millions of rows takes minutes to build instead of the hours
// of processing it.

// seedChunk is how many rows one statement inserts: each commits on its
// own, so that no transaction holds millions of rows' WAL and locks.
const seedChunk = 100_000

// seedSpacing is the time between two seeded rows' ends: about what this
// machine takes per job, so that ten million rows span some twenty
// minutes, far inside the 30 days of the default retention.
const seedSpacing = 125 * time.Microsecond

// seedFinishedSQL inserts $3 rows numbered from $2: row g ended at
// $1 − g × $4, was enqueued and scheduled 2 ms before and started 1 ms
// before it ended. Its id is a ULID, as the client makes them: the
// milliseconds of created_at then 80 bits of an md5 of the run's seed $5
// and g, so that ids are valid, distinct, and in the primary key where
// the client's would be. attempt 0 and the NULL columns are those of a
// first attempt that completed.
const seedFinishedSQL = `
	INSERT INTO %s.jobs (id, queue, payload, metadata, status, attempt, created_at, scheduled_at, started_at, started_by, completed_at)
	SELECT (lpad(to_hex(floor(extract(epoch FROM t.created) * 1000)::bigint), 12, '0') || left(md5($5 || g::text), 20))::uuid,
	       'noop', '{}', '{}', 'completed', 0, t.created, t.created, t.ended - interval '1 ms', $6::uuid, t.ended
	FROM generate_series($2::bigint, $2::bigint + $3 - 1) AS g,
	     LATERAL (SELECT $1::timestamptz - g * $4::interval AS ended, $1::timestamptz - g * $4::interval - interval '2 ms' AS created) AS t`

// seedWorker is the started_by of seeded rows: a worker that ran them and
// has not been deleted yet, as in a live system's recent history.
const seedWorker = "01000000-0000-4000-8000-00000000f1a1"

// seeder inserts finished rows into one schema's jobs, numbering them on
// from run to run so that each row's id and end time stay distinct.
type seeder struct {
	db     *pgxpool.Pool
	tables string    // the quoted schema
	newest time.Time // when row 0 ended
	seed   string    // makes this run's ids differ from another run's
	next   int64     // the number of the next row
}

func newSeeder(db *pgxpool.Pool, tables string, newest time.Time) *seeder {
	return &seeder{db: db, tables: tables, newest: newest, seed: newest.Format(time.RFC3339Nano)}
}

// add inserts n more finished rows, older than those added before, in
// chunks of seedChunk rows, each committed on its own.
func (sd *seeder) add(ctx context.Context, n int) error {
	q := fmt.Sprintf(seedFinishedSQL, sd.tables)
	for left := int64(n); left > 0; {
		k := min(left, seedChunk)
		if _, err := sd.db.Exec(ctx, q, sd.newest, sd.next, k, seedSpacing, sd.seed, seedWorker); err != nil {
			return fmt.Errorf("insert finished rows %d to %d into %s.jobs: %w", sd.next, sd.next+k-1, sd.tables, err)
		}
		sd.next += k
		left -= k
	}
	return nil
}
