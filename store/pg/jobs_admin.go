package pg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// PromoteScheduledJobs makes due scheduled rows available and notifies each
// queue that got one, in queue order, in one statement, planned with index
// scans only: jobs_promote_idx from its start to now.
func (t *tx) PromoteScheduledJobs(ctx context.Context) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	total := 0
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) error {
		var n int64
		var ignored bool
		_, err := pgx.ForEachRow(rows, []any{&n, &ignored}, func() error {
			total += int(n)
			return nil
		})
		return err
	}, t.s.sql(promoteSQL), t.nowArg(), t.s.chAvailable)
	if err != nil {
		return 0, t.fail(err, "promote scheduled jobs")
	}
	if total > 0 { // due rows sort before most of the backlog
		t.madeAvailable()
	}
	return total, nil
}

// promoteSQL is PromoteScheduledJobs's statement: $1 now, $2 the channel.
const promoteSQL = `
	WITH promoted AS (
		UPDATE {schema}.jobs SET status = 'available'
		WHERE status = 'scheduled' AND scheduled_at <= coalesce($1::timestamptz, now())
		RETURNING queue)
	SELECT q.n, pg_notify($2, q.queue) IS NULL
	FROM (SELECT queue, count(*) AS n FROM promoted GROUP BY queue) AS q ORDER BY q.queue`

func (t *tx) GetJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(`SELECT `+jobColumns+` FROM {schema}.jobs WHERE id = $1`), idArg(id))
	if err != nil {
		return store.Job{}, t.fail(err, "get job %s", id)
	}
	job, err := pgx.CollectExactlyOneRow(rows, scanJob)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, fmt.Errorf("get job %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Job{}, t.fail(err, "get job %s", id)
	}
	return job, nil
}

// ListJobs builds its WHERE clause from the filter's set fields, so each
// shape gets a plan that can use the (status, queue, id) index.
func (t *tx) ListJobs(ctx context.Context, f store.JobFilter) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	limit, err := rules.PageSize(f)
	if err != nil {
		return nil, err
	}
	var where []string
	var args []any
	add := func(cond string, arg ...any) {
		for _, a := range arg {
			args = append(args, a)
			cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(args)), 1)
		}
		where = append(where, cond)
	}
	order := "id"
	if !f.NewestFirst {
		add("id > ?", idArg(f.After))
	} else if order = "id DESC"; f.After != (ulid.ULID{}) {
		add("id < ?", idArg(f.After))
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if f.Queue != "" {
		add("queue = ?", f.Queue)
	}
	if f.LastAttempt {
		where = append(where, "next_attempt_id IS NULL")
	}
	if f.NextAttempt != (ulid.ULID{}) {
		add("next_attempt_id = ?", idArg(f.NextAttempt))
	}
	if f.OlderThan > 0 {
		add("created_at < coalesce(?::timestamptz, now()) - ?::interval", t.nowArg(), durationArg(f.OlderThan))
	}
	if f.Text != "" {
		add("strpos(payload::text, ?) > 0", f.Text)
	}
	where = append(where, "TRUE")
	args = append(args, limit)
	rows, err := t.db.Query(ctx, t.s.sql(`SELECT `+jobColumns+` FROM {schema}.jobs
		WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT $`+strconv.Itoa(len(args))), args...)
	if err == nil {
		var jobs []store.Job
		if jobs, err = collectJobs(rows, 0); err == nil {
			return jobs, nil
		}
	}
	return nil, t.fail(err, "list %s", describeFilter(f))
}

// describeFilter says in words which jobs f selects, for an error.
func describeFilter(f store.JobFilter) string {
	words := []string{"jobs"}
	if f.Status != "" {
		words = append(words, "with status "+string(f.Status))
	}
	if f.Queue != "" {
		words = append(words, "on queue "+strconv.Quote(f.Queue))
	}
	if f.LastAttempt {
		words = append(words, "at their last attempt")
	}
	if f.NextAttempt != (ulid.ULID{}) {
		words = append(words, "whose next attempt is "+f.NextAttempt.String())
	}
	if f.OlderThan > 0 {
		words = append(words, "created more than "+f.OlderThan.String()+" ago")
	}
	if f.Text != "" {
		words = append(words, "whose payload contains "+strconv.Quote(f.Text))
	}
	order, page := "oldest first", "after"
	if f.NewestFirst {
		order, page = "newest first", "before"
	}
	if f.After != (ulid.ULID{}) {
		words = append(words, page+" "+f.After.String())
	}
	return strings.Join(words, " ") + ", " + order
}

// DeleteOldJobs deletes up to limit terminal rows that ended before
// now − age, those that ended first; the foreign keys set links to them
// (next attempts, schedules) to NULL.
func (t *tx) DeleteOldJobs(ctx context.Context, age time.Duration, limit int) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if limit < 1 {
		return 0, nil
	}
	var n int
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		return br.QueryRow().Scan(&n)
	}, t.s.sql(deleteOldJobsSQL), t.nowArg(), durationArg(age), limit)
	if err != nil {
		return 0, t.fail(err, "delete up to %d jobs ended more than %v ago", limit, age)
	}
	return n, nil
}

// deleteOldJobsSQL is DeleteOldJobs's statement: $1 now, $2 the age, $3 the
// limit; the last row of a callback takes its batches row along
// (deleteBatchesSQL). It
// reads jobs_ended_idx, keyed by end time and id (migration 0022), in
// order from its start and sorts nothing, so that it reads about limit
// entries, whatever the history and whatever the statistics say. A row a
// waiting job waits for (job_waits) stays; only rows marked awaited (a
// superset) are looked up there, and the OR keeps the planner from
// turning the lookup into a join that reads all of job_waits. A row an
// earlier attempt names stays until that attempt is gone (rules.Kept's
// Chained); the scalar subquery, which the planner never turns into a
// join, probes jobs_next_attempt_idx once per row it judges.
const deleteOldJobsSQL = `
	WITH gone AS (DELETE FROM {schema}.jobs WHERE id = ANY (ARRAY(
		SELECT j.id FROM {schema}.jobs AS j
		WHERE status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed')
		  AND coalesce(completed_at, failed_at, cancelled_at) < coalesce($1::timestamptz, now()) - $2::interval
		  AND NOT (` + haltsSequence + `)
		  AND (awaited IS NULL OR NOT EXISTS (SELECT FROM {schema}.job_waits AS w WHERE w.parent = j.id)) -- see below
		  AND NOT (` + batchUncounted + `)
		  AND (SELECT true FROM {schema}.jobs AS p WHERE p.next_attempt_id = j.id LIMIT 1) IS NULL
		ORDER BY coalesce(completed_at, failed_at, cancelled_at), j.id
		LIMIT $3)) RETURNING id, callback_of),
	batch AS (` + deleteBatchesSQL + `)
	SELECT count(*) FROM gone`
