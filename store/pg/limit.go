package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// A limited queue's running jobs are counted, not slotted (migration
// 0013). A reservation that would add to them holds the queue's limit lock
// (limitLockSQL) from before the statement that counts them until it
// commits, so that those reservations count one after another and each
// sees what the one before it started. A job pass that starts no more of
// the queue's jobs than it has just completed of them, in its own
// transaction, leaves the count where it was and needs neither the lock nor
// the count: no other reservation can have taken those places, which were
// still running when it began. That is the usual pass of a busy worker, so
// workers seldom wait for each other's commits.
//
// Reusing places that way keeps the count at most the limit only if it
// was. A limit set below what runs therefore marks the queue overrun
// (queues.limit_overrun): its reservations then all take the lock, and the
// first that counts at most the limit running clears the mark.

// SetQueueLimit sets the queue's limit (0: none) and marks the queue
// overrun when more of its rows run now than the new limit. It holds the
// queue's lock exclusive, so no reservation is in flight: what runs is
// what committed.
func (t *tx) SetQueueLimit(ctx context.Context, name string, limit int) error {
	if err := rules.ValidateQueueLimit(name, limit); err != nil {
		return err
	}
	if err := t.editQueue(ctx, "limit", name, rules.LimitEdit(limit)); err != nil {
		return err
	}
	t.s.noteControlled()
	if limit == 0 {
		return nil
	}
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		_, err := br.Exec()
		return err
	}, t.s.sql(markOverrunSQL), name)
	if err != nil {
		return t.fail(err, "limit queue %q", name)
	}
	return nil
}

// markOverrunSQL marks queue $1 overrun when more of its rows run than its
// limit, counting them through jobs_running_idx (bounded by the workers'
// concurrency, not by the history).
const markOverrunSQL = `
	UPDATE {schema}.queues AS q SET limit_overrun = q.max_running < (
		SELECT count(*) FROM {schema}.jobs AS r WHERE r.status = 'running' AND r.queue = q.name)
	WHERE q.name = $1`

// completeRecordingSQL and completeOutputRecordingSQL are completeSQL and
// completeOutputSQL for a job pass that reserves for controlled queues
// (completeRecording): they also record in tickwork.ended how many rows
// of each queue they completed, for limitLockSQL. Only the statement that
// moved a row out of running counts it, so a completion fenced by another
// transaction's cancel frees nothing here: that cancel did.
var (
	completeRecordingSQL       = recording(completeUpdate)
	completeOutputRecordingSQL = recording(completeOutputUpdate)
)

// recording wraps a completion's update as completeRecordingSQL describes: it
// appends one [queue, count] pair per queue of the rows it completed.
func recording(update string) string {
	return completionHead + update + completionTail + `,
	recorded AS MATERIALIZED (
		SELECT set_config('tickwork.ended', (coalesce(nullif(current_setting('tickwork.ended', true), ''), '[]')::jsonb
			|| coalesce((SELECT jsonb_agg(jsonb_build_array(n.queue, n.ended)) FROM (SELECT queue, count(*) AS ended FROM done GROUP BY queue) AS n), '[]'))::text, true))
	SELECT id FROM done WHERE (SELECT count(*) FROM recorded) > 0 AND ` + childrenReleased
}

// limitLockSQL decides, for each limited queue of $2 that is not paused,
// whether the reservation may reuse places or must count (always, for a
// queue with a per-key limit: reserve_keyed.go): it counts the
// jobs of the queue that this transaction's completions recorded
// (completeRecording), and takes the queue's limit lock, key $1, when the queue
// is overrun or when $3 jobs are more than that. It records the answer in
// tickwork.limit_room for reserveSQL: the places to reuse, or -1 where it
// took the lock. It runs after the queues' shared locks (lockQueuesSQL),
// which keep every change of a queue's controls out until commit, and takes
// the limit locks in one order, so that no two transactions wait for each
// other's. Only the overrun mark may change meanwhile: a reservation that
// counted may clear it, which costs this one a lock it did not need.
const limitLockSQL = `
	SELECT set_config('tickwork.limit_room', coalesce(json_object_agg(d.queue,
			CASE WHEN d.counts THEN -1 - length(pg_advisory_xact_lock($1, hashtext(d.queue))::text) ELSE d.ended END), '{}')::text, true)
	FROM (SELECT q.queue, ctl.key_limit IS NOT NULL OR ctl.limit_overrun OR $3 > e.ended AS counts, e.ended
		FROM (SELECT queue FROM unnest($2::text[]) AS queue) AS q
		JOIN {schema}.queues AS ctl ON ctl.name = q.queue AND (ctl.max_running IS NOT NULL OR ctl.key_limit IS NOT NULL)
			AND ctl.paused_at IS NULL
		CROSS JOIN LATERAL (SELECT coalesce(sum((e.pair ->> 1)::integer), 0) AS ended
			FROM jsonb_array_elements(coalesce(nullif(current_setting('tickwork.ended', true), ''), '[]')::jsonb) AS e(pair)
			WHERE e.pair ->> 0 = q.queue) AS e
		ORDER BY hashtext(q.queue), q.queue OFFSET 0) AS d`
