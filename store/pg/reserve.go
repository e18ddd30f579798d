package pg

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Reserve sends two statements in one round trip: the first checks that
// worker is live and holds a share lock on its row until commit, so the
// leader cannot declare it dead while its reservation is in flight; the
// second reserves, repeating the liveness check so that it reserves nothing
// for a dead worker.
func (t *tx) Reserve(ctx context.Context, worker ulid.ULID, queues []string, limit int) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	t.s.queueLive(b, t.nowArg(), worker)
	reserving := limit > 0 && len(queues) > 0
	full := reserving && t.s.queueReserveRows(b, t.nowArg(), worker, queues, limit, true)
	br := t.db.SendBatch(ctx, b)
	_, live, err := readLive(br)
	var jobs []store.Job
	if err == nil && reserving {
		jobs, err = t.s.readReserved(br, limit, full, true)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, t.fail(err, "reserve for worker %s", worker)
	}
	if !live {
		return nil, fmt.Errorf("reserve for worker %s: no live worker: %w", worker, store.ErrNotFound)
	}
	return jobs, nil
}

// queueLive adds a statement that reads the store time and whether worker
// is live, share-locking its row until commit so that no leader declares it
// dead meanwhile.
func (s *Store) queueLive(b *pgx.Batch, now pgtype.Timestamptz, worker ulid.ULID) {
	b.Queue(s.sql(`SELECT coalesce($1::timestamptz, now()),
		EXISTS (`+liveWorkerRow+` FOR SHARE)`), now, idArg(worker))
}

// readLive reads queueLive's answer.
func readLive(br pgx.BatchResults) (now time.Time, live bool, err error) {
	err = br.QueryRow().Scan(&now, &live)
	return store.Truncate(now), live, err
}

// queueReserveRows adds the reservation, planned with index scans only (see
// queueIndexScansOnly). Callers queue it only when limit and queues allow
// one: PostgreSQL rejects LIMIT with a negative count.
//
// It returns whether it queued the reservation for controlled queues (see
// reserve_plain.go), which readReserved must be told. restore says whether
// statements follow in the transaction, which must plan as the caller's
// settings say: a batch that ends its transaction with the reservation
// (the job pass) needs no restoring, the settings end with it, and is
// spared a statement.
func (s *Store) queueReserveRows(b *pgx.Batch, now pgtype.Timestamptz, worker ulid.ULID, queues []string, limit int, restore bool) (full bool) {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	full = s.controlled.Load()
	b.Queue(s.sql(lockQueuesSQL), s.queueKey, queues)
	b.Queue(indexScansOnlySQL)
	if full {
		b.Queue(s.sql(claimRunSlotsSQL), queues, limit, idArg(worker), now)
		b.Queue(s.sql(reserveStatement()), now, idArg(worker), queues, limit)
	} else {
		b.Queue(s.sql(plainReserveStatement()), now, idArg(worker), queues, limit)
	}
	if restore {
		b.Queue(restorePlannerSQL)
	}
	return full
}

// lockQueuesSQL takes the advisory lock of each queue of $2 (see
// queues.go) shared: reservations do not wait for each other, and a change
// of a queue's controls, which takes it exclusive, waits for those in
// flight and holds up those that come after it. It also says whether any
// queue (of any reservation's: the answer serves them all) has a limit or
// a rate, for the next reservation's choice of statement
// (reserve_plain.go).
const lockQueuesSQL = `
	SELECT count(pg_advisory_xact_lock_shared($1, hashtext(q.queue))),
		EXISTS (SELECT FROM {schema}.queues AS ctl WHERE ctl.max_running IS NOT NULL OR ctl.rate_starts IS NOT NULL)
	FROM (SELECT queue FROM unnest($2::text[]) AS queue ORDER BY hashtext(queue), queue) AS q`

// claimRunSlotsSQL locks, for each limited queue of $1 that is not paused,
// run slots with a free place (fewer of their jobs running than their
// places), as many as $2 jobs need when each has the fewest places a slot
// of the queue has, and one more: in slot order from a slot drawn from
// worker $3 and the store time $4 (so that concurrent reservations start
// apart) round to the one before it. It locks a slot before counting its
// jobs, so that it never counts the slots other reservations hold (it
// skips them) and those it finds full are skipped by the others until it
// commits; it records each claimed slot, with its jobs still running, in
// tickwork.run_slots for reserveSQL. With one place a slot (limits up to
// store.MaxRunSlots, which least(…, 64) spells here) that is $2 slots.
//
// It is a statement of its own, after the queues' locks. Its snapshot may
// predate a reservation that committed a slot it then locks: the lock
// reads the slot as committed, but the count of its jobs still sees them
// as they were, not running yet. Such a slot's version (xmin) differs
// from the one the snapshot holds, and the claim records it as stale;
// reserveSQL, whose snapshot comes after every lock taken here, counts a
// stale slot's jobs again and trusts the count of the others (their jobs
// all started before the snapshot, and those that finished since only
// make the count high). Nobody else writes a slot meanwhile. The jobs are
// read by primary key; the status is matched as in completeSQL, so never
// through jobs_running_idx.
const claimRunSlotsSQL = `
	SELECT set_config('tickwork.run_slots', coalesce(json_agg(json_build_object('queue', c.queue, 'slot', c.slot, 'still', c.still, 'stale', c.stale)), '[]')::text, true)
	FROM (SELECT q.queue, s.slot, s.still, s.stale FROM unnest($1::text[]) AS q(queue)
		CROSS JOIN LATERAL (SELECT 1 + abs(hashtext($3::text || coalesce($4::timestamptz, now())::text) % n.slots) AS first,
				least($2, ($2 + n.places - 1) / n.places + 1) AS claims
			FROM {schema}.queues AS ctl
			CROSS JOIN LATERAL (SELECT least(ctl.max_running, 64) AS slots, ctl.max_running / least(ctl.max_running, 64) AS places) AS n
			WHERE ctl.name = q.queue AND ctl.max_running IS NOT NULL AND ctl.paused_at IS NULL) AS ctl
		CROSS JOIN LATERAL (
			SELECT l.slot, r.still, l.version <> (SELECT seen.xmin FROM {schema}.queue_run_slots AS seen
					WHERE seen.queue = q.queue AND seen.slot = l.slot) AS stale FROM (
				SELECT after.* FROM (SELECT rs.slot, rs.places, rs.job_ids, rs.xmin AS version FROM {schema}.queue_run_slots AS rs
					WHERE rs.queue = q.queue AND rs.slot >= ctl.first
					ORDER BY rs.queue, rs.slot FOR UPDATE SKIP LOCKED) AS after
				UNION ALL
				SELECT before.* FROM (SELECT rs.slot, rs.places, rs.job_ids, rs.xmin AS version FROM {schema}.queue_run_slots AS rs
					WHERE rs.queue = q.queue AND rs.slot < ctl.first
					ORDER BY rs.queue, rs.slot FOR UPDATE SKIP LOCKED) AS before
				OFFSET 0) AS l
			CROSS JOIN LATERAL (SELECT ` + stillRunning + ` AS still OFFSET 0) AS r
			WHERE cardinality(r.still) < l.places
			LIMIT ctl.claims) AS s) AS c`

// stillRunning is the ids, in order, of the jobs of a run slot l that run.
const stillRunning = `ARRAY(SELECT r.id FROM {schema}.jobs AS r
	WHERE r.id = ANY (l.job_ids) AND ` + statusRunning + ` ORDER BY r.id)`

// statusRunning matches a running row r as completeSQL does, so that the
// planner never reads jobs_running_idx for it.
const statusRunning = `r.status >= 'running' AND r.status <= 'running'`

// readReserved reads the answers of queueReserveRows's statements (full:
// what it returned; restore: what it was given) and the reserved rows.
func (s *Store) readReserved(br pgx.BatchResults, limit int, full, restore bool) ([]store.Job, error) {
	var locked int64
	var controlled bool
	if err := br.QueryRow().Scan(&locked, &controlled); err != nil { // lockQueuesSQL
		return nil, err
	}
	s.controlled.Store(controlled)
	execs := 1 // indexScansOnlySQL
	if full {
		execs++ // claimRunSlotsSQL
	}
	for range execs {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	var jobs []store.Job
	rows, err := br.Query()
	if err == nil {
		jobs, err = collectJobs(rows, limit)
	}
	if err == nil && restore {
		_, err = br.Exec() // restorePlannerSQL
	}
	return jobs, err
}

// reserveSQL picks, for each queue that is not paused, its first
// available rows in reservation order (priority, scheduled_at, id) that no
// other transaction holds (SKIP LOCKED), at most the room its limit and
// its rate leave,
// keeps the limit first of them all and marks those running. A row whose
// scheduled_at is after the transaction's now waits: with database time,
// now() is when the reserving transaction began, and a row inserted or
// promoted by a transaction that began later may already be visible;
// starting it would stamp started_at before its scheduled_at (found by the
// live chaos run). The per-queue scans walk jobs_available_idx in its
// order; rows a scan locked but the merge dropped stay locked until
// commit, at most (queues − 1) × limit of them, which other workers skip
// meanwhile.
//
// With the planner limited to index scans, reading jobs_available_idx in
// its order under the LIMIT costs no more than any other plan whatever the
// statistics say, so it is the plan: about limit entries per queue, with a
// backlog of a million rows as with ten. A queue's row is read by primary
// key.
//
// The queue is matched with >= and <= rather than = on purpose: with an
// equality the planner treats ORDER BY queue, priority, … as ORDER BY
// priority, …, and with statistics that still count finished rows as
// available (a queue table changes faster than ANALYZE runs) it may then
// prefer another path past every finished row. With a range, only the
// partial index yields that order.
//
// A rate-limited queue's room is the rate slots it claimed (see migration
// 0010): the free ones no other transaction holds, oldest first, read from
// queue_rate_slots_free_idx, which yields only free slots. Of those it
// stamps as many as it reserved jobs of the queue; the others stay locked
// until commit and unstamped, like the rows the merge dropped.
//
// A limited queue's room is the free places, by this statement's
// snapshot, of the run slots claimRunSlotsSQL claimed (see migrations 0011
// and 0012); the jobs it reserves of the queue fill them in slot and id
// order, and each slot it fills keeps its jobs still running beside them.
// Reservations of a limited queue thus never wait for each other, where
// they used to take its lock exclusive and count its running rows one
// after another.
const reserveSQL = `
	WITH claimed AS MATERIALIZED (
		SELECT q.queue, s.slot FROM unnest($3::text[]) AS q(queue)
		CROSS JOIN LATERAL (SELECT rate_period FROM {schema}.queues AS ctl
			WHERE ctl.name = q.queue AND ctl.rate_starts IS NOT NULL AND ctl.paused_at IS NULL) AS ctl
		CROSS JOIN LATERAL (
			SELECT slot FROM {schema}.queue_rate_slots
			WHERE queue = q.queue AND last_start <= coalesce($1::timestamptz, now()) - ctl.rate_period
			ORDER BY queue, last_start, slot LIMIT $4
			FOR UPDATE SKIP LOCKED) AS s),
	run_claimed AS MATERIALIZED (
		SELECT c.queue, c.slot, r.still, greatest(l.places - cardinality(r.still), 0) AS free
		FROM json_to_recordset(coalesce(current_setting('tickwork.run_slots', true), '[]')::json)
			AS c(queue text, slot integer, still uuid[], stale boolean)
		JOIN {schema}.queue_run_slots AS l ON l.queue = c.queue AND l.slot = c.slot
		CROSS JOIN LATERAL (SELECT CASE WHEN c.stale THEN ` + stillRunning + ` ELSE c.still END AS still OFFSET 0) AS r),
	picked AS MATERIALIZED (
		SELECT q.queue, c.id, c.priority, c.scheduled_at FROM unnest($3::text[]) AS q(queue)
		CROSS JOIN LATERAL (SELECT coalesce((
			SELECT CASE
				WHEN ctl.paused_at IS NOT NULL THEN 0
				ELSE least(CASE WHEN ctl.max_running IS NULL THEN $4
					ELSE (SELECT coalesce(sum(free), 0) FROM run_claimed WHERE run_claimed.queue = q.queue) END,
				CASE WHEN ctl.rate_starts IS NULL THEN $4
					ELSE (SELECT count(*) FROM claimed WHERE claimed.queue = q.queue) END) END
			FROM {schema}.queues AS ctl WHERE ctl.name = q.queue), $4) AS room) AS r
` + pickJobs + `,
	picked_ids AS MATERIALIZED (SELECT queue, array_agg(id ORDER BY id) AS ids FROM picked GROUP BY queue),
	stamped AS (
		UPDATE {schema}.queue_rate_slots AS s SET last_start = coalesce($1::timestamptz, now())
		FROM (SELECT queue, slot, row_number() OVER (PARTITION BY queue ORDER BY slot) AS k FROM claimed) AS c
		WHERE s.queue = c.queue AND s.slot = c.slot
		  AND c.k <= (SELECT count(*) FROM picked WHERE picked.queue = c.queue)),
	assigned AS (
		UPDATE {schema}.queue_run_slots AS s SET job_ids = c.still || p.ids[c.before + 1 : c.before + c.free]
		FROM (SELECT queue, slot, still, free,
				sum(free) OVER (PARTITION BY queue ORDER BY slot ROWS UNBOUNDED PRECEDING) - free AS before
			FROM run_claimed) AS c
		JOIN picked_ids AS p ON p.queue = c.queue
		WHERE s.queue = c.queue AND s.slot = c.slot AND c.free > 0 AND c.before < cardinality(p.ids)),
` + markReserved
