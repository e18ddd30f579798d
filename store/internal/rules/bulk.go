package rules

import (
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// Cancellable reports whether CancelJobFrom cancels a row of status s
// read as from ("" for any status).
func Cancellable(s, from store.Status) bool {
	return !s.Terminal() && (from == "" || s == from)
}

// CancelRefusal is the refusal of CancelJobFrom(id, from) for row j, or
// for no row when found is false: ErrNotFound, or ErrConflict saying
// what the row is. The same in every store.
func CancelRefusal(id ulid.ULID, j store.Job, found bool, from store.Status) error {
	switch {
	case !found:
		return fmt.Errorf("cancel job %s: %w", id, store.ErrNotFound)
	case from != "" && j.Status != from && !j.Status.Terminal():
		return fmt.Errorf("cancel job %s: it is %s now, not %s: %w", id, j.Status, from, store.ErrConflict)
	}
	return fmt.Errorf("cancel job %s: it is %s: %w", id, j.Status, store.ErrConflict)
}

// SameLength returns an error wrapping store.ErrInvalid, naming what,
// when a batch's two lists differ in length.
func SameLength(what string, ids, other int) error {
	if ids != other {
		return fmt.Errorf("%s: %d ids but %d values: %w", what, ids, other, store.ErrInvalid)
	}
	return nil
}
