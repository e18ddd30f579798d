package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/store"
)

// settleWaitingJobs is the leader's safety net for jobs with parents: a
// parent's completion or cancel settles its children in its own
// transaction, but a failure cannot (a retry may follow in the same
// transaction), so each leader pass settles the children of parents that
// ended (store.Tx.SettleWaitingJobs).
func (c *Core) settleWaitingJobs(ctx context.Context, tx store.Tx, now time.Time) error {
	settled, err := tx.SettleWaitingJobs(ctx)
	if err != nil {
		return fmt.Errorf("settle waiting jobs: %w", err)
	}
	for _, j := range settled {
		e := c.note(EventJobSettled, c.id, now)
		e.Job, e.Reason = j, j.FailedReason
	}
	return nil
}
