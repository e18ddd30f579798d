package worker

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// DeleteJob deletes job id for good and returns its last row. Only a job
// that ended goes, and only one retention could delete, at any age: not
// one that halts its sequence (skip or retry it first), that a waiting
// job waits for, that its batch has not counted yet, or that an earlier
// attempt of its chain links to (delete that one first). A running job is
// never deleted under its worker: cancel it first. Those are refused with
// an error wrapping store.ErrConflict that says what to do; an unknown id
// with store.ErrNotFound.
func (c *Client) DeleteJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	var job store.Job
	err := c.st.InTx(ctx, func(tx store.Tx) (err error) { job, err = tx.DeleteJob(ctx, id); return err })
	if err != nil {
		return store.Job{}, fmt.Errorf("worker: %w", err)
	}
	return job, nil
}
