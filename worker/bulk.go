package worker

import (
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// BulkAction is what Client.Bulk does to each job its filter selects.
type BulkAction string

// The bulk actions: each is the single-job action of the same name
// (Client.Retry, Client.Cancel, Client.DeleteJob) on every selected job.
const (
	BulkRetry  BulkAction = "retry"
	BulkCancel BulkAction = "cancel"
	BulkDelete BulkAction = "delete"
)

// DefaultBulkBatch and MaxBulkBatch bound the rows one transaction of
// Client.Bulk reads: enough to finish a large backlog in few round trips,
// few enough that a batch's row locks never hold a worker up for long.
const (
	DefaultBulkBatch = 500
	MaxBulkBatch     = 5000
)

// MaxBulkRefusals is how many refusals a BulkResult names; it counts all.
const MaxBulkRefusals = 100

// BulkFilter selects the jobs of a bulk action; zero fields match every
// job, and an empty filter is refused unless All is set.
type BulkFilter struct {
	Queue  string
	Status store.Status
	// OlderThan keeps jobs created more than this long before the
	// store's now (the database's clock); a negative age is an error.
	OlderThan time.Duration
	// Text keeps jobs whose payload's JSON text contains it,
	// case-sensitive (store.JobFilter.Text).
	Text string
	// All allows an empty filter: the action on every job.
	All bool
}

// empty reports whether f selects by nothing.
func (f BulkFilter) empty() bool {
	return f.Queue == "" && f.Status == "" && f.OlderThan == 0 && f.Text == ""
}

// BulkRequest is one call of Client.Bulk.
type BulkRequest struct {
	Action BulkAction
	Filter BulkFilter
	// DryRun counts the jobs the filter selects and changes nothing.
	DryRun bool
	// BatchSize is how many jobs one transaction reads, 0 for
	// DefaultBulkBatch; at most MaxBulkBatch. Each row is read whole,
	// payload included: a smaller batch suits large payloads.
	BatchSize int
}

// BulkResult counts what Client.Bulk did.
type BulkResult struct {
	Matched  int      `json:"matched"`  // jobs the filter selected
	Done     int      `json:"done"`     // jobs the action changed; 0 for a dry run
	Refused  int      `json:"refused"`  // jobs the store refused the action
	Refusals []string `json:"refusals"` // why, for the first MaxBulkRefusals
	Batches  int      `json:"batches"`  // transactions run
}

// check returns what is wrong with r, naming the input, or nil.
func (r BulkRequest) check() error {
	f := r.Filter
	if f.Queue != "" {
		if err := names.Check("queue", f.Queue); err != nil {
			return err
		}
	}
	switch {
	case r.Action != BulkRetry && r.Action != BulkCancel && r.Action != BulkDelete:
		return fmt.Errorf("action %q: want retry, cancel or delete: %w", r.Action, store.ErrInvalid)
	case f.Status != "" && !f.Status.Valid():
		return fmt.Errorf("status %q is not a job status: %w", f.Status, store.ErrInvalid)
	case f.OlderThan < 0:
		return fmt.Errorf("age %v is negative: %w", f.OlderThan, store.ErrInvalid)
	case r.BatchSize < 0 || r.BatchSize > MaxBulkBatch:
		return fmt.Errorf("batch size %d is not within 1 to %d: %w", r.BatchSize, MaxBulkBatch, store.ErrInvalid)
	case f.empty() && !f.All:
		return fmt.Errorf("an empty filter selects every job: give a queue, status, age or text, or set All: %w", store.ErrInvalid)
	}
	return nil
}
