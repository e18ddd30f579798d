package store

import (
	"errors"

	"github.com/tickwork/tickwork/internal/names"
)

// Errors a caller can test with errors.Is. Stores wrap them with the
// operation and the input that failed.
var (
	// ErrNotFound: the job, worker or schedule named does not exist, or the
	// worker has been shut down (declared dead) and must register again.
	ErrNotFound = errors.New("not found")
	// ErrFenced: a result was recorded for a job that is no longer running
	// under this worker (it was rescued, cancelled or already recorded).
	// Nothing was changed.
	ErrFenced = errors.New("fenced: job is no longer running under this worker")
	// ErrConflict: the row is not in a state that allows the operation
	// (retrying a job that already has a next attempt, cancelling a
	// completed job, inserting a duplicate id).
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: a transient failure (connection lost, database
	// restarting, serialization failure). The transaction may or may not have
	// committed; the caller should retry with backoff.
	ErrUnavailable = errors.New("store unavailable")
	// ErrInvalid: the input was rejected before anything was written
	// (payload that is not JSON or too large, empty queue name, bad limit).
	ErrInvalid = names.ErrInvalid
)
