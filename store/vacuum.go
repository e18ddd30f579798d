package store

import (
	"context"
	"time"
)

// Vacuum is the vacuums row of the jobs table: the last vacuum a leader
// decided on. It is persisted so that a new leader keeps the interval its
// predecessor began.
type Vacuum struct {
	// StartedAt is the store time of the duty transaction that decided on
	// the vacuum.
	StartedAt time.Time
	// DeadRows is the count of dead rows that transaction read.
	DeadRows int64
}

// Vacuums is the bookkeeping of the vacuum duty: what a leader reads and
// writes, in its duty transaction, to decide whether the jobs table is due
// a vacuum. The vacuum itself cannot run inside a transaction: a store
// that can run one is a Vacuumer.
type Vacuums interface {
	// DeadJobRows returns the store's count of dead rows in the jobs table:
	// row versions that updates and deletes left behind and no vacuum has
	// removed yet. In PostgreSQL it is the statistics' n_dead_tup, which
	// lag the writes by up to a second or so; store/mem counts exactly
	// (store/SEMANTICS.md).
	DeadJobRows(ctx context.Context) (int64, error)
	// LastVacuum returns the last vacuum recorded; ErrNotFound if none was.
	LastVacuum(ctx context.Context) (Vacuum, error)
	// RecordVacuum records that a vacuum starts now, decided on deadRows
	// dead rows, replacing the last one. ErrInvalid for a negative count.
	RecordVacuum(ctx context.Context, deadRows int64) error
}

// Vacuumer is a store that can vacuum its jobs table, which the vacuum
// duty needs (it is optional: a store without it has none). Stores that
// wrap another must pass it on (cmd/worker's probe, the simulator's fault
// store), or the duty silently stops.
type Vacuumer interface {
	// VacuumJobs vacuums and analyzes the jobs table, outside any
	// transaction: it removes the dead rows (and their index entries) that
	// no open transaction can still see. It may take long on a large table;
	// it does not block reads or writes of jobs (PostgreSQL's VACUUM takes
	// a SHARE UPDATE EXCLUSIVE lock). ctx cancels it.
	VacuumJobs(ctx context.Context) error
}
