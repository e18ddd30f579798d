package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// holdsKey is jobs_unique_idx's predicate on the row named prefix ("" or
// "alias."): the row holds its unique key. ON CONFLICT infers the index
// from it, so it must say what the index says (migration 0009's).
func holdsKey(prefix string) string {
	return prefix + `unique_key IS NOT NULL AND (` + prefix + `unique_states & CASE ` + prefix + `status
		WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
		WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 WHEN 'cancelled' THEN 64 ELSE 128 END) <> 0`
}

// idTakenSQL fails with division_by_zero when an id of $1 exists. ON
// CONFLICT skips a row whose key is held before its primary key is
// checked, so a duplicate id would pass unseen; and the check must fail in
// the server, so that the savepoint's release queued after it is skipped.
// It is planned with index scans only (see RunJobPass): kept from a small
// table, its plan read the whole table at every unique enqueue.
const idTakenSQL = `SELECT 1 / (count(*) = 0)::int FROM {schema}.jobs WHERE id = ANY ($1::uuid[])`

// insertSkippingSQL inserts the rows of insertArgs, skipping each whose key
// a row holds (one inserted earlier by the statement included), notifies
// ($15) each queue that got an available row, in queue order, and returns
// the ids it inserted.
const insertSkippingSQL = `
	WITH now AS (SELECT coalesce($1::timestamptz, now()) AS now),
	ins AS (` + insertSelect + `
		ON CONFLICT (unique_key) WHERE {holds} DO NOTHING
		RETURNING id, queue, status),
	notified AS (SELECT count(pg_notify($15, q.queue)) AS n
		FROM (SELECT DISTINCT queue FROM ins WHERE status = 'available' ORDER BY queue) AS q)
	SELECT ins.id FROM notified, ins`

// insertUnique inserts a batch with unique keys in one round trip under
// a savepoint (a second one reads the rows holding the keys of the jobs
// it skipped, if any).
func (t *tx) insertUnique(ctx context.Context, jobs []store.NewJob) ([]store.Duplicate, error) {
	if err := repeatedID(jobs); err != nil {
		return nil, err
	}
	var now time.Time
	for _, j := range jobs {
		if j.UniquePeriod > 0 { // the window is of the store's time
			var err error
			if now, err = t.Now(ctx); err != nil {
				return nil, err
			}
			break
		}
	}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = names.StoredKey(j.UniqueKey, j.CoveredStatuses().String(), j.UniquePeriod, now)
	}
	args := append(t.insertArgs(jobs, keys), t.s.chAvailable)
	inserted := make(map[[16]byte]bool, len(jobs))
	err := t.underSavepoint(ctx, func(b *pgx.Batch) {
		queueIndexScansOnly(b, t.s.sql(idTakenSQL), args[1]) // see idTakenSQL
		b.Queue(strings.ReplaceAll(t.s.sql(insertSkippingSQL), "{holds}", holdsKey("")), args...)
	}, func(br pgx.BatchResults) error {
		err := readIndexScansOnly(br, func() error { _, err := br.Exec(); return err })
		if err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "22012" {
				return fmt.Errorf("insert %d jobs: a job's id exists already: %w", len(jobs), store.ErrConflict)
			}
			return err
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		var id pgtype.UUID
		_, err = pgx.ForEachRow(rows, []any{&id}, func() error { inserted[id.Bytes] = true; return nil })
		return err
	})
	if err != nil {
		return nil, err
	}
	var skipped []int
	var skippedKeys []string
	for i, j := range jobs {
		if !inserted[j.ID] {
			skipped, skippedKeys = append(skipped, i), append(skippedKeys, keys[i])
		}
	}
	if len(skipped) == 0 {
		return nil, nil
	}
	return t.holders(ctx, skipped, skippedKeys)
}

// repeatedID returns an ErrConflict for the first id the batch repeats.
func repeatedID(jobs []store.NewJob) error {
	seen := make(map[[16]byte]bool, len(jobs))
	for _, j := range jobs {
		if seen[j.ID] {
			return fmt.Errorf("insert job %s: duplicate id: %w", j.ID, store.ErrConflict)
		}
		seen[j.ID] = true
	}
	return nil
}

// holders reads the rows holding keys, the keys of the jobs at positions
// skipped of the batch.
func (t *tx) holders(ctx context.Context, skipped []int, keys []string) ([]store.Duplicate, error) {
	var found []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) { // see idTakenSQL
		found, err = collectJobs(rows, len(keys))
		return err
	}, t.s.sql(`SELECT `+jobColumns+` FROM {schema}.jobs
		WHERE unique_key = ANY ($1::text[]) AND `+holdsKey("")), keys)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]store.Job, len(found))
	for _, j := range found {
		byKey[j.UniqueKey] = j
	}
	dups := make([]store.Duplicate, len(skipped))
	for n, i := range skipped {
		held, ok := byKey[keys[n]]
		if !ok {
			// ON CONFLICT saw the holder; it changed status since.
			return nil, fmt.Errorf("job %d of the batch: the row holding its unique key %s left it meanwhile: %w",
				i, names.Quote(keys[n]), store.ErrConflict)
		}
		dups[n] = store.Duplicate{Index: i, Existing: held}
	}
	return dups, nil
}
