package pg

import (
	"encoding/json"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// jobColumns lists a jobs row in the order scanJob reads it. Statements
// that return jobs name these columns unqualified, so their other relations
// use different column names.
const jobColumns = `id, queue, payload, metadata, status, attempt, created_at, scheduled_at,
	started_at, started_by, completed_at, failed_at, failed_reason, cancelled_at, next_attempt_id, schedule_name,
	unique_key, unique_states, output, priority, max_attempts, snoozes, partition_key,
	sequence_key, sequence_pos, sequence_continues, sequence_skipped, parents, run_anyway,
	batch, batch_counted, callback_of, dead_from`

// jobScan holds the scan targets of one row of jobColumns. A reservation
// reads a hundred rows or more per job pass, and targets declared one by
// one each escaped to the heap through Scan's arguments: twenty
// allocations a row, which cost the pass more than decoding. One jobScan
// serves every row of a result.
type jobScan struct {
	id, startedBy, next, batch, callbackOf                    pgtype.UUID
	payload, metadata, output                                 []byte
	queue, status                                             string
	attempt, snoozes                                          int32
	priority                                                  int16
	created, scheduled, started, completed, failed, cancelled pgtype.Timestamptz
	reason, schedule, uniqueKey, partitionKey, sequenceKey    pgtype.Text
	deadFrom                                                  pgtype.Text
	sequencePos                                               pgtype.Int8
	sequenceContinues, sequenceSkipped                        bool
	uniqueStates                                              pgtype.Int2
	maxAttempts                                               pgtype.Int4
	parents                                                   []pgtype.UUID
	runAnyway, batchCounted                                   pgtype.Bool
	targets                                                   []any
}

// scan reads the current row of r into a new job.
func (sc *jobScan) scan(r pgx.CollectableRow) (store.Job, error) { return sc.scanWith(r) }

// scanWith reads the current row of r into a new job, and the columns
// that follow jobColumns into extra.
func (sc *jobScan) scanWith(r pgx.CollectableRow, extra ...any) (store.Job, error) {
	if sc.targets == nil {
		sc.targets = []any{&sc.id, &sc.queue, &sc.payload, &sc.metadata, &sc.status, &sc.attempt, &sc.created, &sc.scheduled,
			&sc.started, &sc.startedBy, &sc.completed, &sc.failed, &sc.reason, &sc.cancelled, &sc.next, &sc.schedule,
			&sc.uniqueKey, &sc.uniqueStates, &sc.output, &sc.priority, &sc.maxAttempts, &sc.snoozes, &sc.partitionKey,
			&sc.sequenceKey, &sc.sequencePos, &sc.sequenceContinues, &sc.sequenceSkipped, &sc.parents, &sc.runAnyway,
			&sc.batch, &sc.batchCounted, &sc.callbackOf, &sc.deadFrom}
	}
	// Each job keeps its own bytes: a target left holding the last row's
	// could be filled in place.
	sc.payload, sc.metadata, sc.output, sc.parents = nil, nil, nil, nil
	if err := r.Scan(append(slices.Clip(sc.targets), extra...)...); err != nil {
		return store.Job{}, err
	}
	j := store.Job{Queue: sc.queue}
	j.ID = toULID(sc.id)
	j.Payload = json.RawMessage(sc.payload)
	j.Metadata = json.RawMessage(sc.metadata)
	j.Status = store.Status(sc.status)
	j.Attempt = int(sc.attempt)
	j.CreatedAt = toTime(sc.created)
	j.ScheduledAt = toTime(sc.scheduled)
	j.StartedAt = toTime(sc.started)
	j.StartedBy = toULID(sc.startedBy)
	j.CompletedAt = toTime(sc.completed)
	j.FailedAt = toTime(sc.failed)
	j.FailedReason = sc.reason.String
	j.CancelledAt = toTime(sc.cancelled)
	j.NextAttemptID = toULID(sc.next)
	j.ScheduleName = sc.schedule.String
	j.UniqueKey = sc.uniqueKey.String
	j.UniqueStates = store.StatusSet(sc.uniqueStates.Int16)
	j.Output = json.RawMessage(sc.output)
	j.Priority = int(sc.priority)
	j.MaxAttempts = int(sc.maxAttempts.Int32)
	j.Snoozes = int(sc.snoozes)
	j.PartitionKey = sc.partitionKey.String
	j.Sequence = store.Sequence{Key: sc.sequenceKey.String, Pos: sc.sequencePos.Int64,
		Continues: sc.sequenceContinues, Skipped: sc.sequenceSkipped}
	if sc.parents != nil {
		j.Parents = make([]ulid.ULID, len(sc.parents))
		for i, p := range sc.parents {
			j.Parents[i] = toULID(p)
		}
	}
	j.RunAnyway = sc.runAnyway.Bool
	j.Batch, j.BatchCounted, j.CallbackOf = toULID(sc.batch), sc.batchCounted.Bool, toULID(sc.callbackOf)
	j.DeadFrom = sc.deadFrom.String
	return j, nil
}

// scanJob reads one row of jobColumns. payload and metadata scan as raw
// bytes: the json codec copies the stored text without re-encoding it.
func scanJob(r pgx.CollectableRow) (store.Job, error) {
	var sc jobScan
	return sc.scan(r)
}

// collectJobs reads every row of rows as a job, with one jobScan for all.
// expect is how many rows
// the caller expects at most: sizing the slice once for it spares the
// copies of growing it, which for a full reservation of large rows cost as
// much as scanning them. Beyond maxExpect the slice grows as needed, so a
// huge limit does not reserve memory for rows that may not exist.
func collectJobs(rows pgx.Rows, expect int) ([]store.Job, error) {
	var sc jobScan
	return pgx.AppendRows(make([]store.Job, 0, min(expect, maxExpect)), rows, sc.scan)
}

// maxExpect bounds the rows collectJobs makes room for up front.
const maxExpect = 1000

// sortByID puts jobs in id order; jobs already in it, the usual case of a
// reservation, are only read.
func sortByID(jobs []store.Job) {
	byID := func(a, b store.Job) int { return a.ID.Compare(b.ID) }
	if !slices.IsSortedFunc(jobs, byID) {
		slices.SortFunc(jobs, byID)
	}
}
