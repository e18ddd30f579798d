package pg

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// Batches (migration 0017): members carry their batch in jobs.batch, the
// callback waits, and the leader counts the members that ended for good
// (jobs_batch_uncounted_idx) into the batches row with store/internal/
// rules (Count, Full), as store/mem does, then releases the callbacks of
// the batches it filled.

// batchUncounted is rules.Uncounted in SQL, the predicate of
// jobs_batch_uncounted_idx.
const batchUncounted = `batch IS NOT NULL AND batch_counted IS NULL
	AND (status IN ('completed', 'cancelled') OR (status IN ('failed', 'lost') AND next_attempt_id IS NULL))`

// makeBatches gives the members of an insert just written their batch,
// makes its callbacks wait and inserts their batches rows.
func (t *tx) makeBatches(ctx context.Context, jobs []store.NewJob) error {
	var members, batches, callbacks []pgtype.UUID
	var counts []int32
	count := map[ulid.ULID]int32{}
	for _, j := range jobs {
		if j.Batch != (ulid.ULID{}) {
			members, batches = append(members, idArg(j.ID)), append(batches, idArg(j.Batch))
			count[j.Batch]++
		}
	}
	for _, j := range jobs {
		if j.Callback {
			callbacks, counts = append(callbacks, idArg(j.ID)), append(counts, count[j.ID])
		}
	}
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error { _, err := br.Exec(); return err },
		t.s.sql(makeBatchesSQL), members, batches, callbacks, counts)
	if err != nil {
		return t.fail(err, "make %d batches", len(callbacks))
	}
	return nil
}

// makeBatchesSQL: $1 the members with $2 their batches, $3 the callbacks
// with $4 their member counts.
const makeBatchesSQL = `
	WITH members AS (
		UPDATE {schema}.jobs AS j SET batch = m.batch FROM unnest($1::uuid[], $2::uuid[]) AS m(id, batch) WHERE j.id = m.id),
	callbacks AS (UPDATE {schema}.jobs SET status = 'waiting', callback_of = id WHERE id = ANY ($3::uuid[]))
	INSERT INTO {schema}.batches (id, members) SELECT * FROM unnest($3::uuid[], $4::int4[])`

// settleBatches counts the members that ended for good since the last
// pass, in id order, and releases the waiting callbacks of the batches
// they filled, in id order, returned by id.
func (t *tx) settleBatches(ctx context.Context, changed map[ulid.ULID]store.Job) error {
	var ended []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		ended, err = collectJobs(rows, 0)
		return err
	}, t.s.sql(countMembersSQL))
	if err != nil || len(ended) == 0 {
		return t.failIf(err, "count the members that ended")
	}
	slices.SortFunc(ended, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
	batches, err := t.lockBatches(ctx, ended)
	if err != nil {
		return err
	}
	var full []ulid.ULID
	for _, j := range ended {
		if b, ok := batches[j.Batch]; ok {
			batches[j.Batch] = rules.Count(b, j)
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(batches), ulid.ULID.Compare) {
		if err := t.writeBatch(ctx, batches[id]); err != nil {
			return err
		}
		if rules.Full(batches[id]) {
			full = append(full, id)
		}
	}
	return t.releaseCallbacks(ctx, full, changed)
}

// countMembersSQL marks counted the member rows that ended for good and
// were not, read in jobs_batch_uncounted_idx, and returns them. A retry
// that locked a row first made it no longer match: the update re-checks
// the row it waited for.
const countMembersSQL = `UPDATE {schema}.jobs SET batch_counted = true WHERE ` + batchUncounted + `
	RETURNING ` + jobColumns

// lockBatches locks and reads the batches rows of the given members.
func (t *tx) lockBatches(ctx context.Context, members []store.Job) (map[ulid.ULID]store.Batch, error) {
	var ids []ulid.ULID
	for _, j := range members {
		ids = append(ids, j.Batch)
	}
	var batches []store.Batch
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		batches, err = pgx.CollectRows(rows, scanBatch)
		return err
	}, t.s.sql(lockBatchesSQL), idArgs(ids))
	if err != nil {
		return nil, t.fail(err, "lock %d batches", len(ids))
	}
	out := make(map[ulid.ULID]store.Batch, len(batches))
	for _, b := range batches {
		out[b.ID] = b
	}
	return out, nil
}

// batchColumns reads batches rows as scanBatch does.
const batchColumns = `SELECT id, members, completed, failed, cancelled, failed_ids FROM {schema}.batches`

// lockBatchesSQL locks the batches rows $1 in id order.
const lockBatchesSQL = batchColumns + ` WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE`

// scanBatch reads one row of batchColumns.
func scanBatch(r pgx.CollectableRow) (store.Batch, error) {
	var id pgtype.UUID
	var members, completed, failed, cancelled int32
	var failedIDs []pgtype.UUID
	if err := r.Scan(&id, &members, &completed, &failed, &cancelled, &failedIDs); err != nil {
		return store.Batch{}, err
	}
	b := store.Batch{ID: toULID(id), Members: int(members), Completed: int(completed), Failed: int(failed), Cancelled: int(cancelled)}
	for _, f := range failedIDs {
		b.FailedIDs = append(b.FailedIDs, toULID(f))
	}
	return b, nil
}

// writeBatch writes a batches row's counts.
func (t *tx) writeBatch(ctx context.Context, b store.Batch) error {
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error { _, err := br.Exec(); return err },
		t.s.sql(writeBatchSQL), idArg(b.ID), int32(b.Completed), int32(b.Failed), int32(b.Cancelled), idArgs(b.FailedIDs))
	if err != nil {
		return t.fail(err, "count batch %s", b.ID)
	}
	return nil
}

// writeBatchSQL writes batches row $1's counts: $2 completed, $3 failed,
// $4 cancelled, $5 the failed ids.
const writeBatchSQL = `UPDATE {schema}.batches SET completed = $2, failed = $3, cancelled = $4, failed_ids = $5::uuid[]
	WHERE id = $1`

// releaseCallbacks takes the callbacks of full batches out of Waiting,
// notifies the queues of those now available and adds them to changed.
func (t *tx) releaseCallbacks(ctx context.Context, full []ulid.ULID, changed map[ulid.ULID]store.Job) error {
	if len(full) == 0 {
		return nil
	}
	var released []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		released, err = collectJobs(rows, len(full))
		return err
	}, t.s.sql(releaseCallbacksSQL), t.nowArg(), idArgs(full))
	if err != nil {
		return t.fail(err, "release the callbacks of %d batches", len(full))
	}
	var queues []string
	for _, j := range released {
		changed[j.ID] = j
		if j.Status == store.Available {
			t.madeAvailable()
			queues = append(queues, j.Queue)
		}
	}
	if err := t.notifyAvailable(ctx, t.db, queues); err != nil {
		return t.fail(err, "notify the queues of %d callbacks", len(queues))
	}
	return nil
}

// releaseCallbacksSQL takes the waiting rows $2 out of Waiting at now
// ($1), as a new job's status is decided.
const releaseCallbacksSQL = `UPDATE {schema}.jobs SET status = CASE WHEN scheduled_at > coalesce($1::timestamptz, now())
	THEN 'scheduled' ELSE 'available' END
	WHERE id = ANY ($2::uuid[]) AND status = 'waiting' RETURNING ` + jobColumns

// GetBatch reads batches row id.
func (t *tx) GetBatch(ctx context.Context, id ulid.ULID) (store.Batch, error) {
	if err := t.check(); err != nil {
		return store.Batch{}, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(batchColumns+` WHERE id = $1`), idArg(id))
	if err != nil {
		return store.Batch{}, t.fail(err, "get batch %s", id)
	}
	b, err := pgx.CollectExactlyOneRow(rows, scanBatch)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Batch{}, fmt.Errorf("get batch %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Batch{}, t.fail(err, "get batch %s", id)
	}
	return b, nil
}
