package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// Sequences (store.Sequence, migration 0015). A job of a sequence is kept
// out of jobs_available_idx, so the reservation of jobs without one reads
// none of a sequence's backlog. While the store knows of sequences
// (Store.sequenced: an insert of its own, or the last reservation's
// lockQueuesSQL found a row that holds a sequence), each reservation
// statement's scan of a queue (pickJobsScan) also takes the queue's
// sequence heads (sequenceHeadsSQL) and keeps the queue's room of both in
// reservation order. As for per-key limits (reserve_keyed.go), a sequence
// that another process started costs at most one reservation that takes
// nothing from it, and no hint (hints.go) is learned meanwhile.
//
// A head is found per key of the queue that has available rows (a skip
// scan of jobs_sequence_available_idx, one probe a key): the key's first
// available row in enqueue order that no other transaction holds, which
// starts if no row of the key runs and no row before it holds the
// sequence (jobs_sequence_open_idx, one probe: OFFSET 0 keeps each check
// a subquery run per head, which the planner would otherwise join with a
// whole sequence's rows). Both checks read the
// statement's snapshot; the row's lock makes the pick safe: a row that
// another transaction reserved, or that was taken and ended since the
// snapshot, is locked in its newer version, which markReserved then skips
// (see there). Another transaction's lock on a key's first row makes the
// lookup return the second, which the check refuses, since the first,
// available, holds the sequence.
//
// An insert numbers a key's jobs after its last place (sequencePlace)
// under the key's lock (lockSequences), so that two enqueues of one key,
// one waiting for the other's commit, number their jobs in commit order.

// sequencedVariant is statement stmt that also takes sequence heads.
func sequencedVariant(stmt string) string {
	if !strings.Contains(stmt, pickJobsScan) {
		panic("pg: a reservation statement without pickJobsScan")
	}
	stmt = strings.Replace(stmt, pickJobsScan, sequencedScan, 1)
	return strings.Replace(stmt, keylessCandidates, keylessCandidates+sequencedKeyedCandidates, 1)
}

// sequencedScan is pickJobsScan that also takes the queue's heads, at most
// the queue's room of both.
var sequencedScan = `
		CROSS JOIN LATERAL (SELECT * FROM (SELECT c.* FROM (VALUES (1)) AS one` + pickJobsScan + `
			UNION ALL (` + sequenceHeads("q.queue", "r.room") + `)) AS u
			ORDER BY priority, scheduled_at, id LIMIT least($4, r.room)) AS c`

// sequencedKeyedCandidates adds the heads of a queue with a per-key limit to
// keyedReserveSQL's candidates: the jobs of a sequence have no partition
// key.
var sequencedKeyedCandidates = `
		UNION ALL
		SELECT rooms.queue, rooms.room, c.id, c.priority, c.scheduled_at, c.row_tid FROM rooms
		CROSS JOIN LATERAL (` + sequenceHeads("rooms.queue", "rooms.room") + `) AS c
		WHERE rooms.key_limit IS NOT NULL AND rooms.room > 0`

// sequenceHeads is the statement that picks the sequence heads of queue
// (an expression) with room room, locking each (see above).
func sequenceHeads(queue, room string) string {
	return `
			WITH RECURSIVE seq_keys AS (
				(SELECT sequence_key FROM {schema}.jobs
				WHERE status = 'available' AND sequence_key IS NOT NULL AND queue = ` + queue + ` AND ` + room + ` > 0
				ORDER BY queue, sequence_key LIMIT 1)
				UNION ALL
				SELECT n.sequence_key FROM seq_keys CROSS JOIN LATERAL (SELECT sequence_key FROM {schema}.jobs
					WHERE status = 'available' AND sequence_key IS NOT NULL AND queue = ` + queue + `
					  AND sequence_key > seq_keys.sequence_key
					ORDER BY queue, sequence_key LIMIT 1) AS n)
			SELECT f.id, f.priority, f.scheduled_at, f.row_tid FROM seq_keys
			CROSS JOIN LATERAL (SELECT id, priority, scheduled_at, queue, sequence_key, sequence_pos, ctid AS row_tid
				FROM {schema}.jobs
				WHERE status = 'available' AND sequence_key IS NOT NULL AND queue = ` + queue + `
				  AND sequence_key = seq_keys.sequence_key
				ORDER BY queue, sequence_key, sequence_pos LIMIT 1
				FOR UPDATE SKIP LOCKED) AS f
			WHERE f.scheduled_at <= coalesce($1::timestamptz, now()) AND ` + reservable + `
			  AND NOT EXISTS (SELECT FROM {schema}.jobs AS o
				WHERE o.sequence_key = f.sequence_key AND ` + openInSequence("o.") + ` AND ` + headBefore + ` OFFSET 0)
			  AND NOT EXISTS (SELECT FROM {schema}.jobs AS o
				WHERE o.sequence_key = f.sequence_key AND o.status = 'running' AND o.sequence_key IS NOT NULL OFFSET 0)`
}

// headBefore is the head check's condition on a row o that holds f's
// sequence (the text the planted bug pg-sequence-skips-locked edits).
const headBefore = `o.sequence_pos < f.sequence_pos`

// headBeforeSkipsLocked is headBefore as pg-sequence-skips-locked plants
// it.
const headBeforeSkipsLocked = headBefore + ` AND NOT (o.status = 'available' AND o.queue = f.queue)`

// openInSequence is jobs_sequence_open_idx's predicate on the row named
// prefix: the row holds its sequence (store.Job.HoldsSequence).
func openInSequence(prefix string) string {
	return prefix + `sequence_key IS NOT NULL AND ` + prefix + `next_attempt_id IS NULL
		AND (` + prefix + `status IN ('scheduled', 'available', 'running')
		     OR ` + prefix + `status IN ('failed', 'lost') AND NOT ` + prefix + `sequence_continues AND NOT ` + prefix + `sequence_skipped)`
}

// openInSequenceRow is openInSequence of an unnamed row.
var openInSequenceRow = openInSequence("")

// pick returns sequenced's statement when the store knows of sequences,
// else plain's.
func pick(known bool, plain, sequenced string) string {
	if known {
		return sequenced
	}
	return plain
}

// haltsSequence is true of a row that halts its sequence (store.Job.Halts).
const haltsSequence = `sequence_key IS NOT NULL AND next_attempt_id IS NULL AND status IN ('failed', 'lost')
	AND NOT sequence_continues AND NOT sequence_skipped`

// sequencePlace is insertSelect's place of row i: after the key's last
// place, in batch order.
const sequencePlace = `CASE WHEN i.skey <> '' THEN
	       coalesce((SELECT max(s.sequence_pos) FROM {schema}.jobs AS s WHERE s.sequence_key = i.skey), 0)
	       + row_number() OVER (PARTITION BY i.skey ORDER BY i.ord) END`

// lockSequences takes the lock of each sequence key of jobs until commit,
// in one order, so that concurrent enqueues of a key wait for each other.
func (t *tx) lockSequences(ctx context.Context, jobs []store.NewJob) error {
	var keys []string
	for _, j := range jobs {
		if j.SequenceKey != "" {
			keys = append(keys, j.SequenceKey)
		}
	}
	slices.Sort(keys)
	var snapshotHeld bool
	err := t.db.QueryRow(ctx, `SELECT current_setting('transaction_isolation') IN ('repeatable read', 'serializable'),
		count(pg_advisory_xact_lock($1, hashtext(k.key)))
		FROM (SELECT DISTINCT key FROM unnest($2::text[]) AS key ORDER BY 1) AS k`, t.s.sequenceKey, slices.Compact(keys)).Scan(&snapshotHeld, nil)
	if err == nil && snapshotHeld {
		// The place is read after the lock (sequencePlace) from the
		// transaction's snapshot, which under REPEATABLE READ and
		// SERIALIZABLE may predate it: the enqueue would take the place of
		// a job committed meanwhile. SERIALIZABLE does not catch it when
		// the other enqueue ran under READ COMMITTED, as the store's do.
		return fmt.Errorf("enqueue jobs of sequence %q in a REPEATABLE READ or SERIALIZABLE transaction: its snapshot may miss the key's last place; enqueue sequenced jobs under READ COMMITTED: %w",
			keys[0], store.ErrInvalid)
	}
	if err == nil {
		t.s.sequenced.Store(true)
	}
	return err
}

// SkipJob marks a job that halts its sequence skipped.
func (t *tx) SkipJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(`UPDATE {schema}.jobs SET sequence_skipped = true
		WHERE id = $1 AND `+haltsSequence+` RETURNING `+jobColumns), idArg(id))
	if err != nil {
		return store.Job{}, t.fail(err, "skip job %s", id)
	}
	job, err := pgx.CollectExactlyOneRow(rows, scanJob)
	if errors.Is(err, pgx.ErrNoRows) {
		current, getErr := t.GetJob(ctx, id)
		if getErr != nil {
			return store.Job{}, fmt.Errorf("skip job %s: %w", id, getErr)
		}
		return store.Job{}, rules.CheckSkip(current)
	}
	if err != nil {
		return store.Job{}, t.fail(err, "skip job %s", id)
	}
	// The next job may start now with no row of its written: wake the
	// workers.
	if _, err := t.db.Exec(ctx, t.s.sql(`SELECT pg_notify($1, h.queue) FROM (SELECT queue, status FROM {schema}.jobs
		WHERE sequence_key = $2 AND `+openInSequenceRow+` ORDER BY sequence_key, sequence_pos LIMIT 1) AS h
		WHERE h.status = 'available'`), t.s.chAvailable, job.Sequence.Key); err != nil {
		return store.Job{}, t.fail(err, "notify the release of sequence %q", job.Sequence.Key)
	}
	return job, nil
}

// SequenceHead reads jobs_sequence_open_idx's first entry of key.
func (t *tx) SequenceHead(ctx context.Context, key string) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(`SELECT `+jobColumns+` FROM {schema}.jobs
		WHERE sequence_key = $1 AND `+openInSequenceRow+` ORDER BY sequence_key, sequence_pos LIMIT 1`), key)
	if err != nil {
		return store.Job{}, t.fail(err, "head of sequence %q", key)
	}
	job, err := pgx.CollectExactlyOneRow(rows, scanJob)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, fmt.Errorf("head of sequence %q: none holds it: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, t.fail(err, "head of sequence %q", key)
	}
	return job, nil
}
