package storetest

import (
	"context"
	"fmt"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// The differential's draws of the cancel check: which of the
// jobs a worker executes were cancelled, alone and inside a job pass.

// drawExecuting draws the ids a worker asks about: up to three, aimed at
// cancelled and running rows, now and then any job (an unknown id
// included), repeats allowed.
func (d *diff) drawExecuting(rt *rapid.T) []ulid.ULID {
	ids := make([]ulid.ULID, rapid.IntRange(0, 3).Draw(rt, "executing"))
	for i := range ids {
		if j := d.pickRow(rt, store.Cancelled); j != nil {
			ids[i] = j.ID
		} else if j := d.pickRow(rt, store.Running); j != nil {
			ids[i] = j.ID
		} else {
			ids[i] = d.pickJob(rt)
		}
	}
	return ids
}

func drawCancelledJobs(rt *rapid.T, d *diff) op {
	ids := d.drawExecuting(rt)
	return op{fmt.Sprintf("cancelledJobs %v", ids), func(ctx context.Context, tx store.Tx) (string, error) {
		out, err := tx.CancelledJobs(ctx, ids)
		return fmtIDs(out), err
	}}
}
