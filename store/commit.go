package store

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Commit describes one committed transaction, as store/mem's commit hook
// reports it and the simulator diffs it from two snapshots elsewhere. Changes
// are listed in the order the transaction made them; a row written twice
// appears twice, the second change's Before being the first one's After.
// The rows are the store's own immutable values: readers must not modify
// them (including Payload and Metadata bytes). The store never reuses a
// Commit's slices, so a hook may keep them.
type Commit struct {
	Now           time.Time // the transaction's store time
	Jobs          []JobChange
	Workers       []WorkerChange
	Lease         *LeaseChange // nil when the transaction did not write the lease
	Schedules     []ScheduleChange
	Queues        []QueueChange
	Notifications []Notification // as delivered to listeners, in order
}

// JobChange is one write of a job row. Before is nil for an insert, After
// is nil for a delete.
type JobChange struct{ Before, After *Job }

// ID returns the id of the row that changed.
func (c JobChange) ID() ulid.ULID {
	if c.After != nil {
		return c.After.ID
	}
	return c.Before.ID
}

// WorkerChange is one write of a worker row (nil for absent).
type WorkerChange struct{ Before, After *Worker }

// ID returns the id of the worker that changed.
func (c WorkerChange) ID() ulid.ULID {
	if c.After != nil {
		return c.After.ID
	}
	return c.Before.ID
}

// LeaseChange is the lease before the transaction and after it (nil for no
// lease). Several lease writes in one transaction are folded into one.
type LeaseChange struct{ Before, After *Lease }

// ScheduleChange is one write of a schedule row (nil for absent).
type ScheduleChange struct{ Before, After *Schedule }

// Name returns the name of the schedule that changed.
func (c ScheduleChange) Name() string {
	if c.After != nil {
		return c.After.Name
	}
	return c.Before.Name
}
