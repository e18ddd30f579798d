package pg

import (
	"context"

	"github.com/tickwork/tickwork/store/internal/rules"
)

// A queue with a per-key limit (queues.key_limit) runs at most that many
// of its jobs of each partition key at once, across every worker. Its
// reservations always take the queue's limit lock (limitLockSQL) and count
// the queue's running rows of each key under it, so that they count one
// after another as for a queue-wide limit; a job pass never reuses places
// of such a queue.
//
// Only reservations that may touch such a queue pay for it: the store
// keeps, beside Store.controlled, Store.keyed (whether the last
// reservation's lockQueuesSQL found a per-key limit on any queue) and
// sends keyedReserveSQL only then. reserveSQL and plainReserveSQL take
// nothing from a queue with a per-key limit, so a limit set by another
// process costs at most one reservation that takes nothing from it, as
// for the other controls (reserve_plain.go).
//
// keyedReserveSQL is reserveSQL whose pick, for a queue with a per-key
// limit, skips over the keys at their limit instead of stopping at them:
// it walks the keys that have available rows through
// jobs_key_available_idx (a skip scan: one probe a key, migration 0014),
// reads each key's first rows in reservation order up to the room its
// limit leaves, and the first rows without a key, then keeps the queue's
// room of them all in reservation order. A key at its limit with a
// backlog of a million rows thus costs one probe. The cost grows with the
// number of keys that have available rows, not with the rows.
//
// Reservation hints (hints.go) are neither used nor learned for these
// queues: the rows of a key at its limit stay available behind the last
// row picked.

// noHints is the epoch queueReserveRows returns for keyedReserveSQL:
// readReserved learns no hint from it.
const noHints = ^uint64(0)

// SetQueueKeyLimit sets the queue's per-key limit (0: none). It holds the
// queue's lock exclusive, as every change of its controls does.
func (t *tx) SetQueueKeyLimit(ctx context.Context, name string, limit int) error {
	if err := rules.ValidateQueueKeyLimit(name, limit); err != nil {
		return err
	}
	if err := t.editQueue(ctx, "per-key limit", name, rules.KeyLimitEdit(limit)); err != nil {
		return err
	}
	t.s.noteControlled()
	if limit > 0 {
		t.s.keyed.Store(true)
	}
	return nil
}

// keyedReserveSQL: see above. rooms holds each queue's room and per-key
// limit; keyed_running the running rows of each key of the queues with a
// per-key limit, read through jobs_running_idx (bounded by the workers'
// concurrency); keys the keys with available rows of those queues.
var keyedReserveSQL = `
	WITH RECURSIVE ` + controlCTEs + `,
	rooms AS MATERIALIZED (
		SELECT q.queue, q.from_priority, q.from_at, q.from_id, coalesce((` + queueRoom("") + `), $4) AS room,
			(SELECT ctl.key_limit FROM {schema}.queues AS ctl WHERE ctl.name = q.queue) AS key_limit
		FROM unnest($3::text[], $5::smallint[], $6::timestamptz[], $7::uuid[]) AS q(queue, from_priority, from_at, from_id)),
	keyed_running AS MATERIALIZED (
		SELECT r.queue, r.partition_key, count(*) AS running
		FROM rooms JOIN {schema}.jobs AS r ON r.status = 'running' AND r.queue = rooms.queue
		WHERE rooms.key_limit IS NOT NULL AND rooms.room > 0 AND r.partition_key IS NOT NULL
		GROUP BY r.queue, r.partition_key),
	keys AS (
		SELECT rooms.queue, k.partition_key FROM rooms
		CROSS JOIN LATERAL (SELECT partition_key FROM {schema}.jobs
			WHERE status = 'available' AND queue = rooms.queue AND partition_key IS NOT NULL
			ORDER BY queue, partition_key LIMIT 1) AS k
		WHERE rooms.key_limit IS NOT NULL AND rooms.room > 0
		UNION ALL
		SELECT keys.queue, k.partition_key FROM keys
		CROSS JOIN LATERAL (SELECT partition_key FROM {schema}.jobs
			WHERE status = 'available' AND queue = keys.queue AND partition_key > keys.partition_key
			ORDER BY queue, partition_key LIMIT 1) AS k),
	candidates AS (
		SELECT rooms.queue, rooms.room, c.id, c.priority, c.scheduled_at, c.row_tid
		FROM keys JOIN rooms ON rooms.queue = keys.queue
		LEFT JOIN keyed_running AS kr ON kr.queue = keys.queue AND kr.partition_key = keys.partition_key
		CROSS JOIN LATERAL (
			SELECT id, priority, scheduled_at, ctid AS row_tid FROM {schema}.jobs
			WHERE status = 'available' AND queue = keys.queue AND partition_key = keys.partition_key
			  AND scheduled_at <= coalesce($1::timestamptz, now())
			  AND ` + reservable + `
			ORDER BY queue, partition_key, priority, scheduled_at, id
			LIMIT least($4, rooms.room, greatest(rooms.key_limit - coalesce(kr.running, 0), 0))
			FOR UPDATE SKIP LOCKED) AS c` + keylessCandidates + `),
	picked AS MATERIALIZED (
		SELECT u.queue, u.id, u.priority, u.scheduled_at, u.row_tid FROM (
			SELECT c.queue, c.id, c.priority, c.scheduled_at, c.row_tid FROM (
				SELECT candidates.*, row_number() OVER (PARTITION BY queue ORDER BY priority, scheduled_at, id) AS k
				FROM candidates) AS c
			WHERE c.k <= c.room
			UNION ALL
			SELECT q.queue, c.id, c.priority, c.scheduled_at, c.row_tid
			FROM rooms AS q CROSS JOIN LATERAL (SELECT q.room) AS r` + pickJobsScan + `
			WHERE q.key_limit IS NULL) AS u
		ORDER BY u.priority, u.scheduled_at, u.id LIMIT $4),
` + stampedCTE + markReserved

// keylessCandidates are keyedReserveSQL's candidates without a partition
// key (nor a sequence key: reserve_sequence.go), read from
// jobs_available_idx, which holds only those.
const keylessCandidates = `
		UNION ALL
		SELECT rooms.queue, rooms.room, c.id, c.priority, c.scheduled_at, c.row_tid FROM rooms
		CROSS JOIN LATERAL (
			SELECT id, priority, scheduled_at, ctid AS row_tid FROM {schema}.jobs
			WHERE status = 'available' AND queue = rooms.queue AND partition_key IS NULL AND sequence_key IS NULL
			  AND scheduled_at <= coalesce($1::timestamptz, now())
			  AND ` + reservable + `
			ORDER BY queue, priority, scheduled_at, id LIMIT least($4, rooms.room)
			FOR UPDATE SKIP LOCKED) AS c
		WHERE rooms.key_limit IS NOT NULL AND rooms.room > 0`
