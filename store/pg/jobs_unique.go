package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
)

// holdsKey is jobs_unique_idx's predicate on the row named prefix ("" or
// "alias."): the row holds its unique key. ON CONFLICT infers the index
// from it, so it must say what the index says.
func holdsKey(prefix string) string {
	return prefix + `unique_key IS NOT NULL AND (` + prefix + `unique_states & CASE ` + prefix + `status
		WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
		WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 ELSE 64 END) <> 0`
}

// insertUnique inserts a batch with unique keys under a savepoint, skipping
// each row whose key a row holds (one inserted earlier in the batch
// included: ON CONFLICT sees the statement's own rows), then reads the rows
// holding the skipped keys.
func (t *tx) insertUnique(ctx context.Context, jobs []store.NewJob) ([]store.Duplicate, error) {
	now, err := t.Now(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = store.StoredUniqueKey(j, now)
	}
	sp, err := t.db.Begin(ctx)
	if err != nil {
		return nil, err
	}
	dups, err := t.insertSkipping(ctx, sp, jobs, keys)
	if err != nil {
		_ = sp.Rollback(ctx)
		return nil, err
	}
	return dups, sp.Commit(ctx)
}

// insertSkipping checks the ids first, in the same round trip: ON CONFLICT
// would skip a row whose key is held before its primary key is checked, and
// a duplicate id must be an ErrConflict whatever the row's key.
func (t *tx) insertSkipping(ctx context.Context, db pgx.Tx, jobs []store.NewJob, keys []string) ([]store.Duplicate, error) {
	if err := repeatedID(jobs); err != nil {
		return nil, err
	}
	args := t.insertArgs(jobs, keys)
	b := &pgx.Batch{}
	b.Queue(t.s.sql(`SELECT id FROM {schema}.jobs WHERE id = ANY ($1::uuid[]) ORDER BY id LIMIT 1`), args[1])
	b.Queue(t.s.sql(`
		WITH now AS (SELECT coalesce($1::timestamptz, now()) AS now)`+insertSelect+`
		ON CONFLICT (unique_key) WHERE `+holdsKey("")+` DO NOTHING
		RETURNING id, queue, status`), args...)
	br := db.SendBatch(ctx, b)
	defer br.Close()
	var taken pgtype.UUID
	switch err := br.QueryRow().Scan(&taken); {
	case err == nil:
		return nil, fmt.Errorf("insert job %s: duplicate id: %w", toULID(taken), store.ErrConflict)
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	inserted := map[[16]byte]bool{}
	var available []string
	var id pgtype.UUID
	var queue, status string
	_, err = pgx.ForEachRow(rows, []any{&id, &queue, &status}, func() error {
		inserted[id.Bytes] = true
		if status == string(store.Available) {
			available = append(available, queue)
		}
		return nil
	})
	if err == nil {
		err = br.Close()
	}
	if err != nil {
		return nil, err
	}
	if err := t.notifyAvailable(ctx, db, available); err != nil {
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
	return t.holders(ctx, db, skipped, skippedKeys)
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
func (t *tx) holders(ctx context.Context, db pgx.Tx, skipped []int, keys []string) ([]store.Duplicate, error) {
	rows, err := db.Query(ctx, t.s.sql(`SELECT `+jobColumns+` FROM {schema}.jobs
		WHERE unique_key = ANY ($1::text[]) AND `+holdsKey("")), keys)
	if err != nil {
		return nil, err
	}
	found, err := collectJobs(rows, len(keys))
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
				i, store.QuoteCut(keys[n]), store.ErrConflict)
		}
		dups[n] = store.Duplicate{Index: i, Existing: held}
	}
	return dups, nil
}
