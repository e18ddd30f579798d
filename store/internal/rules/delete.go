package rules

import (
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// Kept is what, besides its status, keeps an ended row from deletion,
// for retention and an operator alike, however old the row.
type Kept struct {
	Awaited   bool // a waiting job waits for it
	Uncounted bool // its batch has not counted its end yet
	// Chained: an earlier attempt names it as its next. Deleting it
	// would leave that attempt looking failed for good (its
	// next_attempt_id NULL): counted again by its batch, or halting its
	// sequence. Retention meets it too: a retry that ends in the same
	// microsecond as the attempt before it, with a smaller id, comes
	// first in retention's (end time, id) order, and store time may go
	// back.
	Chained bool
}

// CheckDelete returns why DeleteJob refuses j (wrapping
// store.ErrConflict), nil when j may go: it ended, halts no sequence,
// and nothing in k keeps it. The same in every store.
func CheckDelete(j store.Job, k Kept) error {
	var why string
	switch {
	case !j.Status.Terminal() && !mutant.On(mutant.DeleteUnended):
		why = fmt.Sprintf("it is %s; cancel it first", j.Status)
	case j.Halts():
		why = fmt.Sprintf("it halts sequence %q; skip or retry it first", j.Sequence.Key)
	case k.Awaited:
		why = "a waiting job waits for it; it goes once the leader settles that job"
	case k.Uncounted:
		why = "its batch has not counted it yet; it may go after the leader's next pass"
	case k.Chained && !mutant.On(mutant.DeleteCutsChains):
		why = "it retries an earlier attempt; delete that one first"
	default:
		return nil
	}
	return fmt.Errorf("delete job %s: %s: %w", j.ID, why, store.ErrConflict)
}

// DeletesAtCompletion reports whether the completion of a job of a queue
// that keeps no history (store.Queue.NoHistory) deletes its row: done is
// the row as the completion leaves it, k what keeps it as the completion
// finds it (Uncounted is implied by done's batch; Awaited also when a
// row waited for it since the leader last settled it, its awaited mark:
// store/pg reads that mark on the row, which a concurrent child's insert
// sets and the DELETE rereads, where the child's job_waits row may be
// outside its snapshot), named whether a
// schedule names it as its last run. The row goes only when CheckDelete
// would let it go and, besides: its unique key does not hold while
// completed (the key would be freed at once), it is not a batch's
// callback (its batch would go with it) and no schedule names it (the
// worker's commit would write the schedule's row, a leader's to write).
// Anything else is completed as before and left to retention. The same in
// every store.
func DeletesAtCompletion(done store.Job, k Kept, named bool) bool {
	k.Uncounted = done.Batch != ulid.ULID{}
	return CheckDelete(done, k) == nil && !done.Holds() && done.CallbackOf == (ulid.ULID{}) && !named
}
