package pg

// A reservation from queues none of which has a limit or a rate needs none
// of their work (limitLockSQL, completeRecording and the CTEs of reserveSQL that
// count running jobs and claim rate slots), which cost the unlimited path
// about a tenth of its throughput when it had run slots to claim. The store therefore keeps, in Store.controlled,
// whether the last reservation's lockQueuesSQL found a limit or a rate on
// any queue (or this store set one since), and sends
// plainReserveSQL when it did not.
//
// The choice is a hint, never what keeps a limit or a rate: plainReserveSQL
// itself takes nothing from a queue whose row, in its snapshot (which comes
// after the queue's advisory lock, like reserveSQL's), has a limit or a
// rate. A control another process set since the last reservation therefore
// costs this store at most one reservation that takes nothing from that
// queue; the answer to its lockQueuesSQL then turns the hint back on.

// plainReserveSQL is reserveSQL for queues without a limit or a rate: a
// paused, limited (per key too) or rate-limited queue gives it no room.
const plainReserveSQL = `
	WITH picked AS MATERIALIZED (
		SELECT q.queue, c.id, c.priority, c.scheduled_at, c.row_tid
		FROM unnest($3::text[], $5::smallint[], $6::timestamptz[], $7::uuid[]) AS q(queue, from_priority, from_at, from_id)
		CROSS JOIN LATERAL (SELECT coalesce((
			SELECT CASE WHEN ctl.paused_at IS NULL AND ctl.max_running IS NULL AND ctl.rate_starts IS NULL
					AND ctl.key_limit IS NULL
				THEN $4 ELSE 0 END
			FROM {schema}.queues AS ctl WHERE ctl.name = q.queue), $4) AS room) AS r
` + pickJobs + `
` + markReserved

// pickJobs ends the picked CTE of both reservations: for each queue q with
// room r.room, its first available rows in reservation order after q's
// hint (hints.go) that no other transaction holds, and the first $4 of
// them all. The hint bounds the index scan's start: a row comparison on
// the index's leading columns is an index condition.
const pickJobs = pickJobsScan + `
		ORDER BY c.priority, c.scheduled_at, c.id LIMIT $4)`

// pickJobsScan is pickJobs's scan of each queue's rows: its first rows
// without a partition key (jobs_available_idx) and its first with one
// (jobs_keyed_available_idx, whose predicate, a key above the empty
// string, only this scan states: migration 0021), each in reservation
// order after the hint, merged. Keeping the rows of each kind in an index of their own gives a
// job without a key one index entry while it is available, not two
// (migration 0019), at the price of a second, most often empty, range to
// probe per queue. The hint serves both: the merge keeps the first of
// the rows both scans read, so every row of either before the last one
// kept was read.
const pickJobsScan = `
		CROSS JOIN LATERAL (
			SELECT * FROM (` + availableScan + `
				WHERE status = 'available' AND partition_key IS NULL AND sequence_key IS NULL AND ` + fromHint + `
				ORDER BY queue, priority, scheduled_at, id LIMIT least($4, r.room)
				FOR UPDATE SKIP LOCKED) AS c
			UNION ALL
			SELECT * FROM (` + availableScan + `
				WHERE status = 'available' AND partition_key > '' AND ` + fromHint + `
				ORDER BY queue, priority, scheduled_at, id LIMIT least($4, r.room)
				FOR UPDATE SKIP LOCKED) AS k
			ORDER BY priority, scheduled_at, id LIMIT least($4, r.room)) AS c`

// availableScan begins a scan of pickJobsScan.
const availableScan = `SELECT id, priority, scheduled_at, ctid AS row_tid FROM {schema}.jobs`

// fromHint is pickJobsScan's condition on queue q.queue's rows: after
// its hint (hints.go), due, and for a live worker while not every queue
// is paused (reservable).
const fromHint = `(queue, priority, scheduled_at, id) > (q.queue, q.from_priority, q.from_at, q.from_id) AND queue <= q.queue
				  AND scheduled_at <= coalesce($1::timestamptz, now())
				  AND ` + reservable

// markReserved ends both reservations: the picked rows become running
// under worker $2 and are returned. It finds them by the tuple ids
// pickJobs locked (a TID scan), not by id through the primary key,
// whose probes cost 3 to 4% of a job pass's server time
// (BenchmarkTickSplit/pass, bench compare). A row that another transaction
// changed, and committed, after this statement's snapshot but left
// available is locked in its newer version, which this snapshot does not
// see: the update then skips it, and it stays available, its lock gone at
// commit, for the next reservation.
//
// The UPDATE is the statement itself, not a CTE read by an outer SELECT
// … ORDER BY id: that kept every returned row in a tuple store and sorted
// them, about 5% of a reservation of 50 jobs by EXPLAIN ANALYZE. The rows
// come in the order of their tuples, which the TID scan reads in physical
// order, and readReserved puts them in id order (for a backlog inserted in
// id order, they are in it already).
const markReserved = `
	UPDATE {schema}.jobs SET status = 'running', started_at = coalesce($1::timestamptz, now()), started_by = $2
	WHERE ctid = ANY (ARRAY(SELECT row_tid FROM picked))
	RETURNING ` + jobColumns

// reservable is the condition every reservation's scans of the jobs put on
// a row beyond its own columns: worker $2 is live and no PauseAll is in
// effect (the store.AllQueues row, read by primary key after
// lockQueuesSQL took its lock). Neither refers to the row, so PostgreSQL
// tests them once per statement (an InitPlan each), and a store that is not
// paused pays one index probe that finds nothing.
const reservable = workerLive + ` AND NOT EXISTS (SELECT FROM {schema}.queues WHERE name = '')`

// noteControlled tells the store that one of its queues may have a limit
// or a rate now, so that its next reservation sends reserveSQL.
func (s *Store) noteControlled() { s.controlled.Store(true) }
