package rules

import (
	"fmt"
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Both stores count a batch's members with these rules, in the leader's
// SettleWaitingJobs: the members that ended for good since the last pass,
// in id order, then the release of the callbacks of the batches they
// filled, in id order. store/pg writes the same in SQL (batch.go).

// Uncounted reports whether member row j ended for good and its batch has
// not counted it: completed, cancelled, or failed or lost with no next
// attempt (a snoozed row always has one). A row whose next attempt was
// deleted would look ended again, so no deletion takes a row an earlier
// attempt names (Kept.Chained): a chain goes from its first row.
func Uncounted(j *store.Job) bool {
	if j.Batch == (ulid.ULID{}) || j.BatchCounted {
		return false
	}
	switch j.Status {
	case store.Completed, store.Cancelled:
		return true
	case store.Failed, store.Lost:
		_, retried := NextOf(*j)
		return !retried || mutant.On(mutant.BatchCountsRetried)
	}
	return false
}

// Count returns b with member row j's end counted: a failed or lost row
// is listed in FailedIDs while fewer than MaxBatchFailedIDs are.
func Count(b store.Batch, j store.Job) store.Batch {
	switch j.Status {
	case store.Completed:
		b.Completed++
	case store.Cancelled:
		b.Cancelled++
	default:
		b.Failed++
		if len(b.FailedIDs) < store.MaxBatchFailedIDs {
			b.FailedIDs = append(slices.Clip(b.FailedIDs), j.ID)
		}
	}
	return b
}

// Full reports whether every member of b ended: its callback may run.
func Full(b store.Batch) bool {
	if mutant.On(mutant.BatchOneShort) {
		return b.Ended() >= b.Members-1
	}
	if mutant.On(mutant.BatchWaitsForCompletion) {
		return b.Completed >= b.Members
	}
	return b.Ended() >= b.Members
}

// RetryQueue is the queue of the row that retries or snoozes old: the
// queue old was dead-lettered from if it was (a redrive), else its own.
func RetryQueue(old store.Job) string {
	if old.DeadFrom != "" {
		return old.DeadFrom
	}
	return old.Queue
}

// RetryBatch is the batch of the row that retries or snoozes old: old's,
// unless old's end was already counted (an operator's retry of a member
// that failed for good), which leaves the batch: a member counts once.
func RetryBatch(old store.Job) ulid.ULID {
	if old.BatchCounted {
		return ulid.ULID{}
	}
	return old.Batch
}

// CheckBatches refuses an insert whose member names no callback of the
// same insert, or whose callback has no member: InsertJobs calls it in
// both stores before writing anything.
func CheckBatches(jobs []store.NewJob) error {
	var members map[ulid.ULID]int
	for _, j := range jobs {
		if j.Batch != (ulid.ULID{}) {
			if members == nil {
				members = map[ulid.ULID]int{}
			}
			members[j.Batch]++
		}
	}
	callbacks := 0
	for _, j := range jobs {
		if j.Callback {
			callbacks++
			if members[j.ID] == 0 {
				return fmt.Errorf("callback %s has no member in the insert: %w", j.ID, store.ErrInvalid)
			}
		}
	}
	if callbacks == len(members) {
		return nil
	}
	for _, j := range jobs {
		if j.Batch != (ulid.ULID{}) && !isCallback(jobs, j.Batch) {
			return fmt.Errorf("job %s: batch %s names no callback of the insert: %w", j.ID, j.Batch, store.ErrInvalid)
		}
	}
	return fmt.Errorf("a callback appears twice in the insert: %w", store.ErrInvalid)
}

// isCallback reports whether id is a callback of jobs.
func isCallback(jobs []store.NewJob, id ulid.ULID) bool {
	for _, j := range jobs {
		if j.Callback && j.ID == id {
			return true
		}
	}
	return false
}

// HasBatch reports whether any job of an insert belongs to a batch, the
// one check an insert without batches pays.
func HasBatch(jobs []store.NewJob) bool {
	for _, j := range jobs {
		if j.Callback || j.Batch != (ulid.ULID{}) {
			return true
		}
	}
	return false
}
