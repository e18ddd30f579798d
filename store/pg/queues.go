package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// A queue's controls are ordered with its reservations by an advisory lock
// per queue: Reserve holds it shared from before the statements that
// reserve until its commit, and every change of the queue's row (and of
// its slots) holds it exclusive. A reservation in flight thus
// commits before a pause can, and one that begins after the pause
// committed reads the pause: no reservation from a paused queue commits
// after the pause.

// lockQueueSQL takes queue $2's lock exclusive, key $1.
const lockQueueSQL = `SELECT pg_advisory_xact_lock($1, hashtext($2))`

func (t *tx) PauseQueue(ctx context.Context, name string) error {
	now, err := t.Now(ctx)
	if err != nil {
		return err
	}
	return t.editQueue(ctx, "pause", name, rules.PauseEdit(now))
}

func (t *tx) ResumeQueue(ctx context.Context, name string) error {
	return t.editQueue(ctx, "resume", name, rules.ResumeEdit)
}

func (t *tx) SetQueueRate(ctx context.Context, name string, n int, period time.Duration) error {
	if err := rules.ValidateQueueRate(name, n, period); err != nil {
		return err
	}
	if err := t.editQueue(ctx, "rate", name, rules.RateEdit(n, period)); err != nil {
		return err
	}
	t.s.noteControlled()
	if err := t.resizeRateSlots(ctx, name, n); err != nil {
		return t.fail(err, "rate queue %q", name)
	}
	return nil
}

// PauseAll writes the AllQueues row under its advisory lock, which every
// reservation holds shared (lockQueuesSQL): as for a queue's pause, a
// reservation in flight commits first, and one that begins later reads it.
func (t *tx) PauseAll(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	now, err := t.Now(ctx)
	if err != nil {
		return err
	}
	return t.writeEdit(ctx, "pause all", store.AllQueues, rules.PauseEdit(now))
}

func (t *tx) ResumeAll(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.writeEdit(ctx, "resume all", store.AllQueues, rules.ResumeEdit)
}

func (t *tx) PausedAll(ctx context.Context) (time.Time, error) {
	if err := t.check(); err != nil {
		return time.Time{}, err
	}
	var at pgtype.Timestamptz
	err := t.db.QueryRow(ctx, t.s.sql(`SELECT paused_at FROM {schema}.queues WHERE name = $1`), store.AllQueues).Scan(&at)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, t.fail(err, "read paused all")
	}
	return toTime(at), nil
}

// editQueue checks the name, then writes the queue's row (writeEdit).
func (t *tx) editQueue(ctx context.Context, what, name string, edit func(*store.Queue)) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := names.Check("queue", name); err != nil {
		return fmt.Errorf("%s queue: %w", what, err)
	}
	return t.writeEdit(ctx, what, name, edit)
}

// writeEdit locks queue name, reads its row and writes it as
// rules.EditQueue decides, notifying when the change wakes the queue (a
// notification of AllQueues wakes every worker).
func (t *tx) writeEdit(ctx context.Context, what, name string, edit func(*store.Queue)) error {
	before, err := t.readQueue(ctx, name)
	if err != nil {
		return t.fail(err, "%s queue %q", what, name)
	}
	after, changed := rules.EditQueue(before, name, edit)
	if !changed {
		return nil
	}
	if after == nil {
		_, err = t.db.Exec(ctx, t.s.sql(`DELETE FROM {schema}.queues WHERE name = $1`), name)
	} else {
		_, err = t.db.Exec(ctx, t.s.sql(`
			INSERT INTO {schema}.queues (name, paused_at, max_running, rate_starts, rate_period, key_limit, dead_letter, history)
			VALUES ($1, $2, nullif($3, 0), nullif($4, 0), nullif($5::interval, '0'), nullif($6, 0), nullif($7, ''), $8)
			ON CONFLICT (name) DO UPDATE SET paused_at = excluded.paused_at, max_running = excluded.max_running,
				rate_starts = excluded.rate_starts, rate_period = excluded.rate_period, key_limit = excluded.key_limit,
				dead_letter = excluded.dead_letter, history = excluded.history`),
			name, timeArg(after.PausedAt), int32(after.Limit), int32(after.Rate), durationArg(after.RatePeriod), int32(after.KeyLimit),
			after.DeadLetter, after.History())
	}
	if err == nil && (store.QueueChange{Before: before, After: after}).Wakes() {
		err = t.notifyAvailable(ctx, t.db, []string{name})
	}
	if err != nil {
		return t.fail(err, "%s queue %q", what, name)
	}
	return nil
}

// readQueue takes the queue's lock and then reads its row (nil: none), in
// one round trip.
func (t *tx) readQueue(ctx context.Context, name string) (*store.Queue, error) {
	b := &pgx.Batch{}
	b.Queue(lockQueueSQL, t.s.queueKey, name)
	b.Queue(t.s.sql(`SELECT `+queueColumns+` FROM {schema}.queues AS q WHERE name = $1`), name)
	br := t.db.SendBatch(ctx, b)
	_, err := br.Exec()
	var q *store.Queue
	if err == nil {
		var r queueRow
		switch err = br.QueryRow().Scan(r.dest()...); {
		case err == nil:
			q = r.queue(name)
		case errors.Is(err, pgx.ErrNoRows):
			err = nil
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return q, err
}

// ListQueues reads the queues rows and the jobs' counts in one statement.
func (t *tx) ListQueues(ctx context.Context) ([]store.QueueStats, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(listQueuesSQL))
	var out []store.QueueStats
	if err == nil {
		var name string
		var r queueRow
		var n int64
		var status pgtype.Text
		_, err = pgx.ForEachRow(rows, append([]any{&name}, append(r.dest(), &status, &n)...), func() error {
			if len(out) == 0 || out[len(out)-1].Name != name {
				out = append(out, store.QueueStats{Queue: *r.queue(name), Counts: map[store.Status]int{}})
			}
			if status.Valid {
				out[len(out)-1].Counts[store.Status(status.String)] = int(n)
			}
			return nil
		})
	}
	if err != nil {
		return nil, t.fail(err, "list queues")
	}
	return out, nil
}

// listQueuesSQL returns one row per queue and status it has rows in, and
// one with a NULL status for a queue that has a queues row and no job;
// not the AllQueues row.
const listQueuesSQL = `
	WITH counts AS (SELECT queue, status, count(*) AS n FROM {schema}.jobs GROUP BY queue, status)
	SELECT coalesce(q.name, c.queue), ` + queueColumns + `, c.status, coalesce(c.n, 0)
	FROM (SELECT * FROM {schema}.queues WHERE name <> '') AS q FULL JOIN counts AS c ON c.queue = q.name
	ORDER BY 1, 9`

// queueColumns are a queues row q's controls as queueRow scans them (a
// missing row reads as no controls).
const queueColumns = `q.paused_at, coalesce(q.max_running, 0), coalesce(q.rate_starts, 0), coalesce(q.rate_period, '0'),
	coalesce(q.key_limit, 0), coalesce(q.dead_letter, ''), coalesce(q.history, 'keep')`

// queueRow is what queueColumns read.
type queueRow struct {
	paused      pgtype.Timestamptz
	limit, rate int32
	period      pgtype.Interval
	keyLimit    int32
	deadLetter  string
	history     string
}

func (r *queueRow) dest() []any {
	return []any{&r.paused, &r.limit, &r.rate, &r.period, &r.keyLimit, &r.deadLetter, &r.history}
}

func (r *queueRow) queue(name string) *store.Queue {
	return &store.Queue{Name: name, PausedAt: toTime(r.paused), Limit: int(r.limit), Rate: int(r.rate),
		RatePeriod: fromInterval(r.period), KeyLimit: int(r.keyLimit), DeadLetter: r.deadLetter,
		NoHistory: r.history == store.HistoryNone}
}
