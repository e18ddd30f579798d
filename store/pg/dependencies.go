package pg

import (
	"context"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// Dependencies (migration 0016): a waiting row's parents column lists
// what it still waits for and job_waits holds the same pairs by parent.
// Both stores decide with store/internal/rules (Settle, DropParents,
// Repoint); here the rows they decide on are read, locked and written.
// A parent's completion releases its children in completeSQL itself, a
// retry or a snooze moves them in insertNextSQL, and everything else (a
// parent that ended otherwise, a cancel) goes through settleFrom.

// hasParents reports whether any job of a batch waits for parents.
func hasParents(jobs []store.NewJob) bool {
	return slices.ContainsFunc(jobs, func(j store.NewJob) bool { return len(j.Parents) > 0 })
}

// checkParents refuses a batch with a parent that names no row and no
// earlier job of the batch, before anything is written.
func (t *tx) checkParents(ctx context.Context, jobs []store.NewJob) error {
	var asked []ulid.ULID
	for _, j := range jobs {
		asked = append(asked, j.Parents...)
	}
	rows, err := t.currentRows(ctx, asked, false)
	if err != nil {
		return t.fail(err, "read the parents of %d jobs", len(jobs))
	}
	earlier := map[ulid.ULID]bool{}
	for _, j := range jobs {
		for _, p := range j.Parents {
			if _, ok := rows[p]; !ok && !earlier[p] {
				return rules.UnknownParent(j.ID, p)
			}
		}
		earlier[j.ID] = true
	}
	return nil
}

// waitForParents makes the batch's jobs with parents, just inserted,
// wait for them (a duplicate standing for the row it duplicated), settled
// at once against parents that already ended, in batch order so that a
// job sees how an earlier one of the batch was settled. The parents are
// locked, so that none ends unseen before the commit: a parent that
// completes later finds its job_waits rows.
func (t *tx) waitForParents(ctx context.Context, jobs []store.NewJob, dups []store.Duplicate) error {
	alias := map[ulid.ULID]ulid.ULID{}
	skip := map[int]bool{}
	for _, d := range dups {
		alias[jobs[d.Index].ID], skip[d.Index] = d.Existing.ID, true
	}
	var asked []ulid.ULID
	for _, j := range jobs {
		asked = append(asked, j.ID)
		for _, p := range j.Parents {
			asked = append(asked, cmpOr(alias[p], p))
		}
	}
	rows, err := t.currentRows(ctx, asked, true)
	if err != nil {
		return err
	}
	now, err := t.Now(ctx)
	if err != nil {
		return err
	}
	lookup := func(id ulid.ULID) (store.Job, bool) { j, ok := rows[id]; return j, ok }
	for i, nj := range jobs {
		if len(nj.Parents) == 0 || skip[i] {
			continue
		}
		before := rows[nj.ID]
		child := before
		child.Status, child.RunAnyway, child.Parents = store.Waiting, nj.RunAnyway, nil
		for _, p := range nj.Parents {
			if p = cmpOr(alias[p], p); !slices.Contains(child.Parents, p) {
				child.Parents = append(child.Parents, p)
			}
		}
		child, _ = rules.Settle(child, lookup, now)
		if err := t.writeSettled(ctx, before, child); err != nil {
			return err
		}
		rows[child.ID] = child
	}
	return nil
}

// cmpOr returns id, or def when id is zero.
func cmpOr(id, def ulid.ULID) ulid.ULID {
	if id == (ulid.ULID{}) {
		return def
	}
	return id
}

// currentRows reads the rows of ids and of their next attempts, each
// chain to its current row, by id; locked (FOR NO KEY UPDATE) if lock.
func (t *tx) currentRows(ctx context.Context, ids []ulid.ULID, lock bool) (map[ulid.ULID]store.Job, error) {
	q := `SELECT ` + jobColumns + ` FROM {schema}.jobs WHERE id = ANY($1::uuid[]) ORDER BY id`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	out := map[ulid.ULID]store.Job{}
	for len(ids) > 0 {
		var jobs []store.Job
		err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
			jobs, err = collectJobs(rows, len(ids))
			return err
		}, t.s.sql(q), idArgs(ids))
		if err != nil {
			return nil, err
		}
		ids = ids[:0]
		for _, j := range jobs {
			out[j.ID] = j
			if next, ok := rules.NextOf(j); ok {
				if _, seen := out[next]; !seen {
					ids = append(ids, next)
				}
			}
		}
	}
	return out, nil
}

// writeSettled writes what settling changed in a row (status, parents,
// run_anyway, a cancel's time and reason) and keeps job_waits in step:
// the pairs of the parents it no longer waits for go, those of new ones
// come and mark their parents awaited.
func (t *tx) writeSettled(ctx context.Context, before, after store.Job) error {
	var cancelledAt pgtype.Timestamptz
	if after.Status == store.Cancelled && before.Status != store.Cancelled {
		cancelledAt = timeArg(after.CancelledAt)
	}
	var parents []pgtype.UUID
	if len(after.Parents) > 0 {
		parents = idArgs(after.Parents)
	}
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) error { _, err := countRows(rows); return err },
		t.s.sql(writeSettledSQL), idArg(after.ID), string(after.Status), parents,
		pgtype.Bool{Bool: true, Valid: after.RunAnyway}, cancelledAt, pgtype.Text{String: after.FailedReason, Valid: after.FailedReason != ""})
	if err != nil {
		return t.fail(err, "settle waiting job %s", after.ID)
	}
	return nil
}

// writeSettledSQL writes row $1's status $2, parents $3 (NULL: none),
// run_anyway $4, cancelled_at $5 (NULL: kept) and failed_reason $6.
const writeSettledSQL = `
	WITH upd AS (
		UPDATE {schema}.jobs SET status = $2, parents = $3::uuid[], run_anyway = $4,
			cancelled_at = coalesce($5::timestamptz, cancelled_at), failed_reason = $6
		WHERE id = $1),
	gone AS (DELETE FROM {schema}.job_waits WHERE child = $1 AND parent <> ALL (coalesce($3::uuid[], '{}'))),
	added AS (
		INSERT INTO {schema}.job_waits (parent, child) SELECT p, $1 FROM unnest($3::uuid[]) AS p
		ON CONFLICT DO NOTHING),
	marked AS (UPDATE {schema}.jobs SET awaited = true WHERE id = ANY ($3::uuid[]) AND awaited IS NULL)
	SELECT 1`

// settleFrom settles, round by round as store/mem does, the rows waiting
// for the given ended parents, then those waiting for the rows it
// cancelled, each round's children locked and settled in id order. It
// returns every row it changed, and the parents of each round.
func (t *tx) settleFrom(ctx context.Context, parents []ulid.ULID) (map[ulid.ULID]store.Job, []ulid.ULID, error) {
	now, err := t.Now(ctx)
	if err != nil {
		return nil, nil, err
	}
	changed := map[ulid.ULID]store.Job{}
	var seen []ulid.ULID
	var released []string // the queues of the rows it made available
	for len(parents) > 0 {
		seen = append(seen, parents...)
		var children []store.Job
		err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
			children, err = collectJobs(rows, 0)
			return err
		}, t.s.sql(childrenSQL), idArgs(parents))
		if err != nil {
			return nil, nil, t.fail(err, "lock the children of %d jobs", len(parents))
		}
		var asked []ulid.ULID
		for _, c := range children {
			asked = append(asked, c.Parents...)
		}
		current, err := t.currentRows(ctx, asked, false)
		if err != nil {
			return nil, nil, t.fail(err, "read the parents of %d jobs", len(children))
		}
		lookup := func(id ulid.ULID) (store.Job, bool) { j, ok := current[id]; return j, ok }
		parents = nil
		for _, c := range children {
			after, ok := rules.Settle(c, lookup, now)
			if !ok {
				continue
			}
			if err := t.writeSettled(ctx, c, after); err != nil {
				return nil, nil, err
			}
			current[c.ID], changed[c.ID] = after, after
			if after.Status == store.Available {
				t.madeAvailable()
				released = append(released, after.Queue)
			}
			if after.Status == store.Cancelled {
				parents = append(parents, c.ID)
			}
		}
	}
	if err := t.notifyAvailable(ctx, t.db, released); err != nil {
		return nil, nil, t.fail(err, "notify the queues of %d released jobs", len(released))
	}
	return changed, seen, nil
}

// childrenSQL locks, in id order, the waiting rows that wait for any of $1.
const childrenSQL = `SELECT ` + jobColumns + ` FROM {schema}.jobs
	WHERE id = ANY (ARRAY(SELECT child FROM {schema}.job_waits WHERE parent = ANY ($1::uuid[]))) AND status = 'waiting'
	ORDER BY id FOR UPDATE`

// SettleWaitingJobs settles the children of the ended rows marked
// awaited (jobs_awaited_ended_idx), then clears the mark of every row it
// settled the children of: no row waits for an ended row again.
func (t *tx) SettleWaitingJobs(ctx context.Context) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var ended []pgtype.UUID
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		ended, err = pgx.CollectRows(rows, pgx.RowTo[pgtype.UUID])
		return err
	}, t.s.sql(endedParentsSQL))
	if err != nil {
		return nil, t.fail(err, "find the ended parents")
	}
	changed := map[ulid.ULID]store.Job{}
	if len(ended) > 0 {
		if changed, err = t.settleEnded(ctx, ended); err != nil {
			return nil, err
		}
	}
	if err := t.settleBatches(ctx, changed); err != nil {
		return nil, err
	}
	out := make([]store.Job, 0, len(changed))
	for _, id := range slices.SortedFunc(maps.Keys(changed), ulid.ULID.Compare) {
		out = append(out, changed[id])
	}
	return out, nil
}

// settleEnded settles the children of the given ended parents, then
// clears their awaited marks.
func (t *tx) settleEnded(ctx context.Context, ended []pgtype.UUID) (map[ulid.ULID]store.Job, error) {
	ids := make([]ulid.ULID, len(ended))
	for i, u := range ended {
		ids[i] = toULID(u)
	}
	changed, settled, err := t.settleFrom(ctx, ids)
	if err != nil {
		return nil, err
	}
	err = t.indexScansOnly(ctx, func(br pgx.BatchResults) error { _, err := br.Exec(); return err },
		t.s.sql(`UPDATE {schema}.jobs SET awaited = NULL WHERE id = ANY ($1::uuid[]) AND awaited`), idArgs(settled))
	if err != nil {
		return nil, t.fail(err, "clear the awaited mark of %d jobs", len(settled))
	}
	return changed, nil
}

// endedParentsSQL finds the ended rows marked awaited, in id order, in
// jobs_awaited_ended_idx.
const endedParentsSQL = `SELECT id FROM {schema}.jobs
	WHERE awaited AND status IN ('completed', 'failed', 'lost', 'cancelled', 'snoozed') ORDER BY id`

// failIf is fail for an error that may be nil.
func (t *tx) failIf(err error, what string) error {
	if err == nil {
		return nil
	}
	return t.fail(err, "%s", what)
}

// childrenReleased is the condition on a completion statement's rows
// that releases the jobs waiting for them; the statement's CTE done
// returns the ids it completed at $1 and whether each is awaited. The
// release is release_children (migration 0025), called only when one of
// them is awaited: a completion of jobs nobody waits for, nearly every
// one, starts no part of it. The condition holds for every row; a
// statement that completes nothing releases nothing.
const childrenReleased = `coalesce((SELECT {schema}.release_children(ARRAY(SELECT id FROM done WHERE awaited), ARRAY(SELECT id FROM done),
		coalesce($1::timestamptz, now()), {available}) WHERE EXISTS (SELECT FROM done WHERE awaited)), 0) >= 0`

// repointChildren continues insertNextSQL's WITH (pairs the old rows
// and the new, $2 the old): the rows waiting for an old row wait for its new one
// instead, in place (rules.Repoint), which inherits its awaited mark. A
// row waiting for several old rows is written once, all replaced.
const repointChildren = `
	moved AS (
		UPDATE {schema}.job_waits AS w SET parent = p.new_id FROM pairs AS p
		WHERE w.parent = ANY ($2::uuid[]) AND w.parent = p.old_id -- by job_waits' key, never a scan of it
		RETURNING w.child),
	children AS (
		UPDATE {schema}.jobs SET parents = ARRAY(
			SELECT coalesce(p.new_id, u.parent) FROM unnest(parents) WITH ORDINALITY AS u(parent, n)
			LEFT JOIN pairs AS p ON p.old_id = u.parent ORDER BY u.n)
		WHERE id = ANY (ARRAY(SELECT child FROM moved)) AND status = 'waiting'),`
