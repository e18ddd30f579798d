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
	"github.com/tickwork/tickwork/store/internal/rules"
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
	full := reserving && t.s.controlled.Load()
	var epoch uint64
	if reserving {
		b.Queue(indexScansOnlySQL)
		epoch = t.s.queueReserveRows(b, t.nowArg(), worker, queues, limit, full, true)
	}
	br := t.db.SendBatch(ctx, b)
	_, live, err := readLive(br)
	var jobs []store.Job
	if err == nil && reserving {
		if _, err = br.Exec(); err == nil { // indexScansOnlySQL
			jobs, err = t.s.readReserved(br, limit, full, true, epoch)
		}
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
	b.Queue(s.sql(liveSQL), now, idArg(worker))
}

// liveSQL is queueLive's statement, and the job pass's (statements.passLive).
const liveSQL = `SELECT coalesce($1::timestamptz, now()),
		EXISTS (` + liveWorkerRow + ` FOR SHARE)`

// readLive reads queueLive's answer.
func readLive(br pgx.BatchResults) (now time.Time, live bool, err error) {
	err = br.QueryRow().Scan(&now, &live)
	return rules.Truncate(now), live, err
}

// queueReserveRows adds the reservation, after the caller queued
// indexScansOnlySQL (see queueIndexScansOnly) so that it is planned with
// index scans only. Callers queue it only when limit and queues allow
// one: PostgreSQL rejects LIMIT with a negative count. full says whether to
// queue the reservation for controlled queues (see reserve_plain.go): the
// store's hint, read once by the caller, so that a job pass's completions
// record what they end for it (completeRecording); readReserved must be told the
// same. restore says whether statements follow in the transaction, which
// must plan as the caller's settings say: a batch that ends its transaction with the reservation
// (the job pass) needs no restoring, the settings end with it, and is
// spared a statement. It returns the epoch of the queues' hints
// (hints.go) it read, which readReserved must be given: noHints for
// keyedReserveSQL, which learns none.
func (s *Store) queueReserveRows(b *pgx.Batch, now pgtype.Timestamptz, worker ulid.ULID, queues []string, limit int, full, restore bool) (epoch uint64) {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	from, epoch := s.hints.start(queues)
	b.Queue(s.sql(lockQueuesSQL), s.queueKey, queues)
	sequenced := s.sequenced.Load()
	if sequenced {
		epoch = noHints
	}
	if full {
		reserve := pick(sequenced, s.stmt.reserve, s.stmt.seqReserve)
		if s.keyed.Load() {
			reserve, epoch = pick(sequenced, s.stmt.keyedReserve, s.stmt.seqKeyedReserve), noHints
		}
		b.Queue(s.stmt.limitLock, s.limitKey, queues, limit)
		b.Queue(reserve, now, idArg(worker), queues, limit, from.priorities, from.times, from.ids)
	} else {
		reserve := pick(sequenced, s.stmt.plainReserve, s.stmt.seqPlainReserve)
		b.Queue(reserve, now, idArg(worker), queues, limit, from.priorities, from.times, from.ids)
	}
	if restore {
		b.Queue(restorePlannerSQL)
	}
	return epoch
}

// lockQueuesSQL takes the advisory lock of each queue of $2 (see
// queues.go), and that of store.AllQueues, shared: reservations do not wait for each other, and a change
// of a queue's controls, which takes it exclusive, waits for those in
// flight and holds up those that come after it. It also says whether any
// queue (of any reservation's: the answer serves them all) has a limit or
// a rate, whether any has a per-key limit, and whether any job holds a
// sequence, for the next reservation's choice of statement
// (reserve_plain.go, reserve_keyed.go, reserve_sequence.go).
var lockQueuesSQL = `
	SELECT count(pg_advisory_xact_lock_shared($1, hashtext(q.queue))),
		EXISTS (SELECT FROM {schema}.queues AS ctl
			WHERE ctl.max_running IS NOT NULL OR ctl.rate_starts IS NOT NULL OR ctl.key_limit IS NOT NULL),
		EXISTS (SELECT FROM {schema}.queues AS ctl WHERE ctl.key_limit IS NOT NULL),
		EXISTS (SELECT FROM {schema}.jobs WHERE ` + openInSequenceRow + `)
	FROM (SELECT queue FROM unnest(array_append($2::text[], '')) AS queue ORDER BY hashtext(queue), queue) AS q`

// readReserved reads the answers of queueReserveRows's statements (full
// and restore: what it was given; epoch: what it returned) and the
// reserved rows.
func (s *Store) readReserved(br pgx.BatchResults, limit int, full, restore bool, epoch uint64) ([]store.Job, error) {
	var locked int64
	var controlled, keyed, sequenced bool
	if err := br.QueryRow().Scan(&locked, &controlled, &keyed, &sequenced); err != nil { // lockQueuesSQL
		return nil, err
	}
	s.controlled.Store(controlled)
	s.keyed.Store(keyed)
	s.sequenced.Store(sequenced)
	if full {
		if _, err := br.Exec(); err != nil { // limitLockSQL
			return nil, err
		}
	}
	var jobs []store.Job
	rows, err := br.Query()
	if err == nil {
		jobs, err = collectJobs(rows, limit)
	}
	if err == nil {
		sortByID(jobs) // markReserved returns them in the order of their tuples
		if epoch != noHints {
			s.hints.learn(epoch, limit, jobs)
		}
	}
	if err == nil && restore {
		_, err = br.Exec() // restorePlannerSQL
	}
	return jobs, err
}

// reserveSQL picks, for each queue that is not paused and has no
// per-key limit (reserve_keyed.go), its first
// available rows in reservation order (priority, scheduled_at, id) that no
// other transaction holds (SKIP LOCKED), at most the room its limit and
// its rate leave,
// keeps the limit first of them all and marks those running. A row whose
// scheduled_at is after the transaction's now waits: with database time,
// now() is when the reserving transaction began, and a row inserted or
// promoted by a transaction that began later may already be visible;
// starting it would stamp started_at before its scheduled_at (found by the
// live chaos run). The per-queue scans walk jobs_available_idx and
// jobs_keyed_available_idx in their order (pickJobsScan); rows a scan
// locked but the merge dropped stay locked until commit, at most
// (2 × queues − 1) × limit of them, which other workers skip meanwhile
// (the keyed scans lock none while no job has a partition key).
//
// With the planner limited to index scans, reading jobs_available_idx in
// its order under the LIMIT costs no more than any other plan whatever the
// statistics say, so it is the plan: about limit entries per queue, with a
// backlog of a million rows as with ten. A queue's row is read by primary
// key.
//
// The queue is matched with a range (> in the row comparison that starts
// the scan after the queue's hint, and <=) rather than = on purpose: with an
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
// A limited queue's room is what limitLockSQL, earlier in the
// transaction, recorded for it: where it took the queue's limit lock, the
// limit less the queue's running rows, counted by this statement's
// snapshot (which comes after the lock, so after the commit of every
// reservation that counted before it; see limit.go); elsewhere the places
// of the jobs the transaction completed, unless the queue is overrun now
// (then none: the next reservation will take the lock). A count that finds
// an overrun queue at most at its limit clears the mark (settled).
var reserveSQL = `
	WITH ` + controlCTEs + `,
	picked AS MATERIALIZED (
		SELECT q.queue, c.id, c.priority, c.scheduled_at, c.row_tid
		FROM unnest($3::text[], $5::smallint[], $6::timestamptz[], $7::uuid[]) AS q(queue, from_priority, from_at, from_id)
		CROSS JOIN LATERAL (SELECT coalesce((` + queueRoom("OR ctl.key_limit IS NOT NULL") + `), $4) AS room) AS r
` + pickJobs + `,
` + stampedCTE + markReserved

// controlCTEs are reserveSQL's CTEs that claim rate slots and count
// limited queues' running rows (see reserveSQL).
const controlCTEs = `claimed AS MATERIALIZED (
		SELECT q.queue, s.slot FROM unnest($3::text[]) AS q(queue)
		CROSS JOIN LATERAL (SELECT rate_period FROM {schema}.queues AS ctl
			WHERE ctl.name = q.queue AND ctl.rate_starts IS NOT NULL AND ctl.paused_at IS NULL) AS ctl
		CROSS JOIN LATERAL (
			SELECT slot FROM {schema}.queue_rate_slots
			WHERE queue = q.queue AND last_start <= coalesce($1::timestamptz, now()) - ctl.rate_period
			ORDER BY queue, last_start, slot LIMIT $4
			FOR UPDATE SKIP LOCKED) AS s),
	limited AS MATERIALIZED (
		SELECT q.queue, ctl.max_running, ctl.limit_overrun, n.running, CASE
				WHEN l.given = -1 THEN greatest(ctl.max_running - n.running, 0)
				WHEN l.given IS NULL OR ctl.limit_overrun THEN 0
				ELSE l.given END AS room
		FROM unnest($3::text[]) AS q(queue)
		JOIN {schema}.queues AS ctl ON ctl.name = q.queue AND ctl.max_running IS NOT NULL
		CROSS JOIN LATERAL (SELECT (coalesce(current_setting('tickwork.limit_room', true), '{}')::json ->> q.queue)::integer AS given) AS l
		CROSS JOIN LATERAL (SELECT CASE WHEN l.given = -1 THEN (SELECT count(*) FROM {schema}.jobs AS r
			WHERE r.status = 'running' AND r.queue = q.queue) END AS running OFFSET 0) AS n),
	settled AS (
		UPDATE {schema}.queues AS ctl SET limit_overrun = false FROM limited AS l
		WHERE ctl.name = l.queue AND l.limit_overrun AND l.running <= l.max_running)`

// queueRoom is the statement that reads queue q.queue's room under its
// controls from the CTEs of controlCTEs: none when paused (or when
// closed, a further condition on its row ctl, holds), else the least of
// $4, its limit's room and its claimed rate slots. A queue without a row
// reads no row (the caller's coalesce gives it $4).
func queueRoom(closed string) string {
	return `
			SELECT CASE
				WHEN ctl.paused_at IS NOT NULL ` + closed + ` THEN 0
				ELSE least(CASE WHEN ctl.max_running IS NULL THEN $4
					ELSE (SELECT coalesce(sum(room), 0) FROM limited WHERE limited.queue = q.queue) END,
				CASE WHEN ctl.rate_starts IS NULL THEN $4
					ELSE (SELECT count(*) FROM claimed WHERE claimed.queue = q.queue) END) END
			FROM {schema}.queues AS ctl WHERE ctl.name = q.queue`
}

// stampedCTE stamps as many claimed rate slots of each queue as the
// reservation picked jobs of it.
const stampedCTE = `	stamped AS (
		UPDATE {schema}.queue_rate_slots AS s SET last_start = coalesce($1::timestamptz, now())
		FROM (SELECT queue, slot, row_number() OVER (PARTITION BY queue ORDER BY slot) AS k FROM claimed) AS c
		WHERE s.queue = c.queue AND s.slot = c.slot
		  AND c.k <= (SELECT count(*) FROM picked WHERE picked.queue = c.queue))
`
