package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/oklog/ulid/v2"
)

// A batch is a group of member jobs and one callback job, inserted
// together (NewJob.Batch, NewJob.Callback). The callback waits, in status
// Waiting, until every member ended for good (completed, failed or lost
// with no next attempt, or cancelled); then it runs once, with the
// batch's outcome in reach (GetBatch). The leader counts the members'
// ends (SettleWaitingJobs): a failure can be followed by its retry in the
// same transaction, so only a later transaction knows it was final.

// Batch is one batches row: the outcome of a batch so far. ID is the id
// of the callback job's first row.
type Batch struct {
	ID        ulid.ULID
	Members   int // how many jobs the batch was inserted with
	Completed int
	Failed    int // failed or lost with no attempt left
	Cancelled int
	// FailedIDs are the first MaxBatchFailedIDs members counted failed
	// (each by the id of its last row), in the order counted; Failed
	// says how many there are in all.
	FailedIDs []ulid.ULID
}

// Ended is how many members ended for good.
func (b Batch) Ended() int { return b.Completed + b.Failed + b.Cancelled }

// String formats every column of the row, so that rows compare as text.
func (b Batch) String() string {
	return fmt.Sprintf("batch %s members=%d completed=%d failed=%d cancelled=%d failed-ids=%v",
		b.ID, b.Members, b.Completed, b.Failed, b.Cancelled, b.FailedIDs)
}

// MaxBatchFailedIDs is how many failed members a batch lists by id.
const MaxBatchFailedIDs = 100

// checkBatch refuses what a job of a batch cannot be: both member and
// callback, or either with a unique key (a duplicate would not be
// inserted), and a callback with parents or a sequence (it waits for its
// members alone).
func checkBatch(j NewJob) error {
	switch {
	case j.Batch == (ulid.ULID{}) && !j.Callback:
		return nil
	case j.Callback && j.Batch != (ulid.ULID{}):
		return fmt.Errorf("callback in batch %s: a batch's callback is no member: %w", j.Batch, ErrInvalid)
	case j.UniqueKey != "":
		return fmt.Errorf("unique key %q in a batch: a batch's jobs cannot be unique: %w", j.UniqueKey, ErrInvalid)
	case j.Callback && (len(j.Parents) > 0 || j.SequenceKey != ""):
		return fmt.Errorf("callback with parents or a sequence: a batch's callback waits for its members alone: %w", ErrInvalid)
	}
	return nil
}

// JobBatch reads the batch j belongs to, as a member or as its callback:
// nil for a job in no batch, or one whose batch retention deleted with
// its callback. The CLI and the console show it.
func JobBatch(ctx context.Context, tx Tx, j Job) (*Batch, error) {
	id := j.CallbackOf
	if id == (ulid.ULID{}) {
		id = j.Batch
	}
	if id == (ulid.ULID{}) {
		return nil, nil
	}
	b, err := tx.GetBatch(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &b, nil
}
