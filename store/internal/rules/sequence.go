package rules

import (
	"fmt"

	"github.com/tickwork/tickwork/store"
)

// CheckSkip returns why SkipJob refuses j (wrapping store.ErrConflict),
// nil when j halts its sequence, the same in every store.
func CheckSkip(j store.Job) error {
	if j.Halts() {
		return nil
	}
	why := "it has no sequence key"
	switch {
	case j.Sequence.Key == "":
	case !j.NextAttemptID.IsZero():
		why = "a later attempt replaced it"
	case j.Sequence.Skipped:
		why = "it was skipped already"
	case j.Status == store.Failed || j.Status == store.Lost:
		why = "its sequence continues on failure"
	default:
		why = "it is " + string(j.Status) + ", not failed for good"
	}
	return fmt.Errorf("skip job %s: %s, so it halts no sequence: %w", j.ID, why, store.ErrConflict)
}
