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

// DeleteFrom is the refusal of deleting row j read as from, nil when it
// is still from (or from is ""): the same in every store.
func DeleteFrom(j store.Job, from store.Status) error {
	if from == "" || j.Status == from {
		return nil
	}
	return fmt.Errorf("delete job %s: it is %s now, not %s: %w", j.ID, j.Status, from, store.ErrConflict)
}

// SameLength returns an error wrapping store.ErrInvalid, naming what,
// when a batch's two lists differ in length.
func SameLength(what string, ids, other int) error {
	if ids != other {
		return fmt.Errorf("%s: %d ids but %d values: %w", what, ids, other, store.ErrInvalid)
	}
	return nil
}

// RetryOf is what a store read for ScheduleRetry(id, newID): the row
// (found false: none), its next attempt (one made earlier in the same
// batch too), whether newID names a row already, and the row holding the
// row's unique key (zero: none).
type RetryOf struct {
	Row     store.Job
	Found   bool
	Next    ulid.ULID
	IDTaken bool
	Holder  ulid.ULID
}

// RetryRefusal is ScheduleRetry(id, newID)'s refusal given what the
// store read, nil when the retry may go: ErrNotFound, or ErrConflict
// saying why. The same in every store. It names the unique key's holder,
// not the key: a key may be made from an encrypted job's clear payload.
func RetryRefusal(id, newID ulid.ULID, r RetryOf) error {
	switch {
	case !r.Found:
		return fmt.Errorf("retry job %s: %w", id, store.ErrNotFound)
	case r.Row.Status != store.Failed && r.Row.Status != store.Lost:
		return fmt.Errorf("retry job %s: it is %s, not failed or lost: %w", id, r.Row.Status, store.ErrConflict)
	case r.Next != (ulid.ULID{}):
		return fmt.Errorf("retry job %s: it already has a next attempt %s: %w", id, r.Next, store.ErrConflict)
	case r.IDTaken:
		return fmt.Errorf("retry job %s as %s: duplicate id: %w", id, newID, store.ErrConflict)
	case r.Holder != (ulid.ULID{}) && r.Row.UniqueKey != "":
		return fmt.Errorf("retry job %s: job %s holds its unique key: %w", id, r.Holder, store.ErrConflict)
	}
	return nil
}
