package store

import (
	"fmt"

	"github.com/oklog/ulid/v2"
)

// checkParents refuses what a job's parents cannot mean: too many, the
// zero id or its own, RunAnyway without parents, or a unique key (which
// no waiting row holds, so that releasing the job could meet its holder).
func checkParents(j NewJob) error {
	switch {
	case len(j.Parents) == 0 && j.RunAnyway:
		return fmt.Errorf("run anyway without parents: %w", ErrInvalid)
	case len(j.Parents) == 0:
		return nil
	case len(j.Parents) > MaxParents:
		return fmt.Errorf("%d parents, more than the %d allowed: %w", len(j.Parents), MaxParents, ErrInvalid)
	case j.UniqueKey != "":
		return fmt.Errorf("parents with unique key %q: a job with parents cannot be unique: %w", j.UniqueKey, ErrInvalid)
	case j.SequenceKey != "":
		// Not yet: a waiting job would have to hold its sequence's place.
		return fmt.Errorf("parents with sequence key %q: a job takes a sequence or parents, not both: %w", j.SequenceKey, ErrInvalid)
	}
	for _, p := range j.Parents {
		if p == (ulid.ULID{}) || p == j.ID {
			return fmt.Errorf("parent %s: a job waits for other jobs: %w", p, ErrInvalid)
		}
	}
	return nil
}
