package pg

import (
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
)

// jobColumns lists a jobs row in the order scanJob reads it. Statements
// that return jobs name these columns unqualified, so their other relations
// use different column names.
const jobColumns = `id, queue, payload, metadata, status, attempt, created_at, scheduled_at,
	started_at, started_by, completed_at, failed_at, failed_reason, cancelled_at, next_attempt_id, schedule_name,
	unique_key, unique_states, output, priority, max_attempts, snoozes`

// scanJob reads one row of jobColumns. payload and metadata scan as raw
// bytes: the json codec copies the stored text without re-encoding it.
func scanJob(r pgx.CollectableRow) (store.Job, error) {
	var (
		j                                                         store.Job
		id, startedBy, next                                       pgtype.UUID
		payload, metadata, output                                 []byte
		status                                                    string
		attempt, snoozes                                          int32
		priority                                                  int16
		created, scheduled, started, completed, failed, cancelled pgtype.Timestamptz
		reason, schedule, uniqueKey                               pgtype.Text
		uniqueStates                                              pgtype.Int2
		maxAttempts                                               pgtype.Int4
	)
	err := r.Scan(&id, &j.Queue, &payload, &metadata, &status, &attempt, &created, &scheduled,
		&started, &startedBy, &completed, &failed, &reason, &cancelled, &next, &schedule, &uniqueKey, &uniqueStates, &output, &priority, &maxAttempts, &snoozes)
	if err != nil {
		return store.Job{}, err
	}
	j.ID = toULID(id)
	j.Payload = json.RawMessage(payload)
	j.Metadata = json.RawMessage(metadata)
	j.Status = store.Status(status)
	j.Attempt = int(attempt)
	j.CreatedAt = toTime(created)
	j.ScheduledAt = toTime(scheduled)
	j.StartedAt = toTime(started)
	j.StartedBy = toULID(startedBy)
	j.CompletedAt = toTime(completed)
	j.FailedAt = toTime(failed)
	j.FailedReason = reason.String
	j.CancelledAt = toTime(cancelled)
	j.NextAttemptID = toULID(next)
	j.ScheduleName = schedule.String
	j.UniqueKey = uniqueKey.String
	j.UniqueStates = store.StatusSet(uniqueStates.Int16)
	j.Output = json.RawMessage(output)
	j.Priority = int(priority)
	j.MaxAttempts = int(maxAttempts.Int32)
	j.Snoozes = int(snoozes)
	return j, nil
}

// collectJobs reads every row of rows as a job. expect is how many rows
// the caller expects at most: sizing the slice once for it spares the
// copies of growing it, which for a full reservation of large rows cost as
// much as scanning them. Beyond maxExpect the slice grows as needed, so a
// huge limit does not reserve memory for rows that may not exist.
func collectJobs(rows pgx.Rows, expect int) ([]store.Job, error) {
	return pgx.AppendRows(make([]store.Job, 0, min(expect, maxExpect)), rows, scanJob)
}

// maxExpect bounds the rows collectJobs makes room for up front.
const maxExpect = 1000
