package main

import (
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// batchField says which batch job is in and how far it is: "callback of
// batch X: N of M members ended (…)" or "member of batch X: …".
func batchField(job store.Job, b *store.Batch) string {
	if b == nil {
		return ""
	}
	role := "member"
	if job.CallbackOf != (ulid.ULID{}) {
		role = "callback"
	}
	s := fmt.Sprintf("%s of batch %s: %d of %d members ended (%d completed, %d failed, %d cancelled)",
		role, b.ID, b.Ended(), b.Members, b.Completed, b.Failed, b.Cancelled)
	if len(b.FailedIDs) > 0 {
		ids := make([]string, len(b.FailedIDs))
		for i, id := range b.FailedIDs {
			ids[i] = id.String()
		}
		s += "; failed: " + strings.Join(ids, ", ")
		if more := b.Failed - len(b.FailedIDs); more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
	}
	return s
}

// batchWait says what a waiting callback waits for.
func batchWait(b *store.Batch) string {
	if b == nil {
		return "for the members of its batch to end"
	}
	return fmt.Sprintf("for the members of its batch to end: %d of %d ended; the leader's next pass counts those that ended since",
		b.Ended(), b.Members)
}

// batchJSON is a batches row as the JSON outputs print it.
type batchJSON struct {
	ID        ulid.ULID   `json:"id"`
	Members   int         `json:"members"`
	Completed int         `json:"completed"`
	Failed    int         `json:"failed"`
	Cancelled int         `json:"cancelled"`
	FailedIDs []ulid.ULID `json:"failed_ids,omitempty"`
}

// shownBatch is b as the JSON outputs print it; nil for nil.
func shownBatch(b *store.Batch) *batchJSON {
	if b == nil {
		return nil
	}
	j := batchJSON(*b)
	return &j
}
