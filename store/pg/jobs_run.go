package pg

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// startedByIs3 matches rows started by worker $3. A row whose worker was
// deleted (started_by NULL) belongs to no worker, the zero id included.
const startedByIs3 = `started_by = $3`

// RunningJobs lists the rows running under worker; a row whose worker was
// deleted (started_by NULL) is nobody's. Its statement reads the worker's
// range of jobs_running_idx, planned with index scans only: a bitmap scan
// would read an entry for every job the worker ran since the last vacuum.
func (t *tx) RunningJobs(ctx context.Context, worker ulid.ULID) ([]store.Job, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var jobs []store.Job
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) {
		jobs, err = collectJobs(rows, 0)
		return err
	}, t.s.sql(runningJobsSQL), idArg(worker))
	if err != nil {
		return nil, t.fail(err, "list running jobs of worker %s", worker)
	}
	return jobs, nil
}

// runningJobsSQL is RunningJobs's statement for worker $1.
const runningJobsSQL = `SELECT ` + jobColumns + ` FROM {schema}.jobs
	WHERE started_by = $1 AND status = 'running' ORDER BY id`

// CompleteJobs completes in one statement the rows still running under
// worker; the others are fenced. Fencing is decided on the rows as they
// were: an id given twice is completed once and fenced neither time.
func (t *tx) CompleteJobs(ctx context.Context, c store.Completion) ([]ulid.ULID, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := c.ValidateOutputs(); err != nil {
		return nil, err
	}
	if len(c.IDs) == 0 {
		return nil, nil
	}
	if t.s.dependents.Load() {
		t.madeAvailable() // it may release a waiting job
	}
	outputs, args := completeArgs(c, t.nowArg())
	stmt := t.s.stmt.completion(outputs, completeDeleting)
	var fenced []ulid.ULID
	err := t.queryIndexScansOnly(ctx, func(rows pgx.Rows) (err error) { // as in the job pass, which shares the statement
		fenced, err = readFenced(rows, c.IDs)
		return err
	}, stmt, args...)
	if err != nil {
		return nil, t.fail(err, "complete %d jobs of worker %s", len(c.IDs), c.Worker)
	}
	return fenced, nil
}

// completionMode is how a completion statement treats the rows of queues
// without history; each mode has a statement for completions without
// outputs and one with (completionSQL).
type completionMode int

const (
	completeDeleting  completionMode = iota // deletes them: completeSQL, completeOutputSQL
	completeKeeping                         // refuses when a queue has none (keephistory.go)
	completeRecording                       // deletes them, and records what it ended (limit.go)
	numCompletionModes
)

// completionSQL are the completion statements, without and with outputs,
// by mode.
var completionSQL = [2][numCompletionModes]string{
	{completeSQL, completeKeepingSQL, completeRecordingSQL},
	{completeOutputSQL, completeOutputKeepingSQL, completeOutputRecordingSQL},
}

// completeArgs returns the arguments of the statement completing c, and
// whether it is the one with outputs (a job of c has an output).
func completeArgs(c store.Completion, now pgtype.Timestamptz) (withOutputs bool, args []any) {
	if !slices.ContainsFunc(c.Outputs, func(o json.RawMessage) bool { return o != nil }) {
		return false, []any{now, idArgs(c.IDs), idArg(c.Worker)}
	}
	// An id given twice keeps its first output: UPDATE … FROM would pick
	// one of its rows at random.
	seen := make(map[ulid.ULID]bool, len(c.IDs))
	var ids []pgtype.UUID
	var outputs []pgtype.Text
	for i, id := range c.IDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		out := c.Output(i)
		ids = append(ids, idArg(id))
		outputs = append(outputs, pgtype.Text{String: string(out), Valid: out != nil})
	}
	return true, []any{now, ids, idArg(c.Worker), outputs}
}

// completeSQL is CompleteJobs's statement: $1 now, $2 the ids, $3 the
// worker. It returns the ids it completed.
//
// The status is matched with >= and <= rather than = so that the planner
// cannot use jobs_running_idx, whose predicate an equality would imply: it
// then ANDs a bitmap of that whole index with the ids' primary-key bitmap,
// and bitmap scans never mark the entries of finished rows dead, so until a
// vacuum every completion reads an entry for every job the table ever ran
// (seen with autovacuum off: 40,000 entries read to complete 100 jobs).
const completeSQL = completionHead + completeUpdate + completionTail + `
	SELECT id FROM done WHERE ` + childrenReleased

// completeUpdate is completeSQL's update of the completed rows it keeps.
const completeUpdate = completeSet + ` AND ` + notGone + completedReturning

// completeSet is completeUpdate without its last condition, notGone.
const completeSet = `
	UPDATE {schema}.jobs SET status = 'completed', completed_at = coalesce($1::timestamptz, now())
	WHERE id = ANY($2::uuid[]) AND status >= 'running' AND status <= 'running' AND ` + startedByIs3

// completedReturning ends a completion's update: what done lists.
const completedReturning = `
	RETURNING id, awaited, queue`

// completeOutputSQL is completeSQL with $4 the outputs, one per id of $2
// (which holds each id once).
const completeOutputSQL = completionHead + completeOutputUpdate + completionTail + `
	SELECT id FROM done WHERE ` + childrenReleased

// completeOutputUpdate is completeOutputSQL's update of the completed
// rows it keeps: their outputs go with the rows it deletes.
const completeOutputUpdate = completeOutputSet + ` AND ` + notGone + completedReturning

// completeOutputSet is completeOutputUpdate without notGone.
const completeOutputSet = `
	UPDATE {schema}.jobs SET status = 'completed', completed_at = coalesce($1::timestamptz, now()), output = o.output::json
	FROM unnest($2::uuid[], $4::text[]) AS o(done_id, output)
	WHERE id = o.done_id AND status >= 'running' AND status <= 'running' AND ` + startedByIs3

// readFenced reads completeSQL's rows and returns the ids among ids that it
// did not complete, in the order given.
func readFenced(rows pgx.Rows, ids []ulid.ULID) ([]ulid.ULID, error) {
	var id pgtype.UUID
	done := make(map[ulid.ULID]bool, len(ids))
	_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		done[toULID(id)] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	var fenced []ulid.ULID
	for _, id := range ids {
		if !done[id] {
			fenced = append(fenced, id)
		}
	}
	return fenced, nil
}

func (t *tx) FailJob(ctx context.Context, worker, id ulid.ULID, reason string) error {
	if err := t.check(); err != nil {
		return err
	}
	var tag pgconn.CommandTag
	err := t.indexScansOnly(ctx, func(br pgx.BatchResults) (err error) {
		tag, err = br.Exec()
		return err
	}, t.s.sql(failSQL), t.nowArg(), idArg(id), idArg(worker), rules.CleanReason(reason))
	if err != nil {
		return t.fail(err, "fail job %s of worker %s", id, worker)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("fail job %s of worker %s: %w", id, worker, store.ErrFenced)
	}
	return nil
}

// failSQL is FailJob's statement: $1 now, $2 the job, $3 the worker, $4 the
// reason. The status is matched as in completeSQL, so that the row is
// found by its id and never through jobs_running_idx (with fresh
// statistics the planner took that index's range of the worker, which
// holds an entry for every job the worker ran since the last vacuum).
const failSQL = `
	UPDATE {schema}.jobs SET status = 'failed', failed_at = coalesce($1::timestamptz, now()), failed_reason = $4
	WHERE id = $2 AND status >= 'running' AND status <= 'running' AND ` + startedByIs3
