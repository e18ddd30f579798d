package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
)

// SetQueueLimit gives the queue run slots of limit places in all
// (store.RunSlotPlaces), built from its rows running now
// (store.RunSlotJobs; see migrations 0011 and 0012), or drops them for no
// limit. It holds the queue's lock exclusive, so no reservation is in
// flight: what runs is what committed.
func (t *tx) SetQueueLimit(ctx context.Context, name string, limit int) error {
	if err := store.ValidateQueueLimit(name, limit); err != nil {
		return err
	}
	if err := t.editQueue(ctx, "limit", name, store.LimitEdit(limit)); err != nil {
		return err
	}
	t.s.noteControlled()
	if err := t.rebuildRunSlots(ctx, name, limit); err != nil {
		return t.fail(err, "limit queue %q", name)
	}
	return nil
}

// rebuildRunSlots replaces the queue's run slots with those of limit.
func (t *tx) rebuildRunSlots(ctx context.Context, name string, limit int) error {
	var running []pgtype.UUID
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err == nil {
			running, err = pgx.CollectRows(rows, pgx.RowTo[pgtype.UUID])
		}
		return err
	}, t.s.sql(runningInQueueSQL), name)
	if err != nil {
		return err
	}
	places := store.RunSlotPlaces(limit)
	var slots []int32
	var ids []pgtype.UUID
	for i, jobs := range store.RunSlotJobs(running, places) {
		for _, id := range jobs {
			slots, ids = append(slots, int32(i+1)), append(ids, id)
		}
	}
	b := &pgx.Batch{}
	b.Queue(t.s.sql(`DELETE FROM {schema}.queue_run_slots WHERE queue = $1`), name)
	if limit > 0 {
		b.Queue(t.s.sql(insertRunSlotsSQL), name, places, slots, ids)
	}
	return t.db.SendBatch(ctx, b).Close()
}

// runningInQueueSQL lists queue $1's running rows in id order, walking
// jobs_running_idx: the rows running now, bounded by the workers'
// concurrency.
const runningInQueueSQL = `SELECT id FROM {schema}.jobs WHERE status = 'running' AND queue = $1 ORDER BY id`

// insertRunSlotsSQL inserts queue $1's run slots, slot i with $2[i]
// places, slot $3[k] holding job $4[k].
const insertRunSlotsSQL = `
	INSERT INTO {schema}.queue_run_slots (queue, slot, places, job_ids)
	SELECT $1, g.slot, g.places, coalesce(array_agg(p.id ORDER BY p.id) FILTER (WHERE p.id IS NOT NULL), '{}')
	FROM unnest($2::integer[]) WITH ORDINALITY AS g(places, slot)
	LEFT JOIN unnest($3::integer[], $4::uuid[]) AS p(slot, id) ON p.slot = g.slot
	GROUP BY g.slot, g.places`
