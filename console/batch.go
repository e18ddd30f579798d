package console

import (
	"context"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// BatchView is the batch a job belongs to, as a member or as its
// callback: how many members ended and how, and the first failed ones.
type BatchView struct {
	ID         ulid.ULID   `json:"id"`
	IsCallback bool        `json:"is_callback"`
	Waiting    bool        `json:"waiting"` // a callback still waiting for the rest of its members
	Members    int         `json:"members"`
	Ended      int         `json:"ended"`
	Completed  int         `json:"completed"`
	Failed     int         `json:"failed"`
	Cancelled  int         `json:"cancelled"`
	FailedIDs  []ulid.ULID `json:"failed_ids,omitempty"`
	MoreFailed int         `json:"more_failed,omitempty"` // failed members beyond FailedIDs
}

// batchView returns the batch of job j, nil for a job in no batch or
// one whose batch retention deleted with its callback.
func batchView(ctx context.Context, st store.Tx, j store.Job) (*BatchView, error) {
	b, err := store.JobBatch(ctx, st, j)
	if b == nil || err != nil {
		return nil, err
	}
	return &BatchView{ID: b.ID, IsCallback: !j.CallbackOf.IsZero(), Waiting: j.Status == store.Waiting && !j.CallbackOf.IsZero(),
		Members: b.Members, Ended: b.Ended(), Completed: b.Completed, Failed: b.Failed, Cancelled: b.Cancelled,
		FailedIDs: b.FailedIDs, MoreFailed: b.Failed - len(b.FailedIDs)}, nil
}
