package pg

import (
	"context"

	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueHistory sets the queue's history column. It holds the queue's
// lock exclusive, as every change of its row does; a completion reads the
// column without the lock, so one in flight applies the setting it saw.
func (t *tx) SetQueueHistory(ctx context.Context, name string, keep bool) error {
	return t.editQueue(ctx, "history", name, rules.HistoryEdit(keep))
}

// completionHead and completionTail begin the WITH of a completion
// statement (completeSQL, completeOutputSQL and their recording forms)
// around the update of the rows it completes: gone deletes the rows of a
// queue without history that nothing keeps, kept is the update, which
// completes the others, and done lists both (id, awaited, queue) for the
// rest of the statement. One statement writes each row once: deleted or
// updated, never both.
const (
	completionHead = `WITH gone AS (` + completeDelete + `),
	kept AS (`
	completionTail = `),
	done AS (SELECT id, awaited, queue FROM gone UNION ALL SELECT id, awaited, queue FROM kept)`
)

// completeDelete deletes the rows of $2 running under worker $3 whose
// queue keeps no history, when rules.DeletesAtCompletion lets them go:
// nothing waits for them, no batch counts them or is theirs, no schedule
// names them (schedules_last_job_idx), their unique key does not hold
// while completed and no earlier attempt names them as its next
// (jobs_next_attempt_idx). "Nothing waits" is read on the row itself, its
// awaited mark, and not only in job_waits: a child inserted concurrently
// locks its parent and marks it, and when that insert commits first this
// DELETE rereads the parent's row (EvalPlanQual) but not job_waits, whose
// new row its snapshot does not hold. Its first condition, a probe of
// queues_no_history_idx, is the whole cost for a store whose queues all
// keep history: the planner makes it a one-time filter, and the job rows
// are not read. The status is matched as in completeUpdate.
const completeDelete = `
	DELETE FROM {schema}.jobs AS j
	WHERE (SELECT EXISTS (SELECT FROM {schema}.queues WHERE history = 'none'))
	  AND j.id = ANY($2::uuid[]) AND j.status >= 'running' AND j.status <= 'running' AND j.started_by = $3
	  AND EXISTS (SELECT FROM {schema}.queues AS q WHERE q.name = j.queue AND q.history = 'none')
	  AND j.batch IS NULL AND j.callback_of IS NULL
	  AND NOT EXISTS (SELECT FROM {schema}.schedules AS s WHERE s.last_scheduled_job_id = j.id)
	  AND (j.unique_key IS NULL OR j.unique_states & 8 = 0) -- 8: completed's bit (jobs_unique_idx)
	  AND j.awaited IS NULL AND NOT EXISTS (SELECT FROM {schema}.job_waits AS w WHERE w.parent = j.id)
	  AND NOT EXISTS (SELECT FROM {schema}.jobs AS p WHERE p.next_attempt_id = j.id)
	RETURNING j.id, j.awaited, j.queue`

// notGone keeps a completion's update off the rows completeDelete
// deleted: the two see the same snapshot.
const notGone = `id <> ALL (ARRAY(SELECT id FROM gone))`
