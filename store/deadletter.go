package store

import (
	"context"
	"time"

	"github.com/oklog/ulid/v2"
)

// RedrivePage sends back up to f.Limit rows of a dead-letter queue: it
// lists the rows f selects (f.Queue the dead-letter queue, f.Status Failed
// or Lost, f.LastAttempt) and gives each dead-lettered one (Job.DeadFrom)
// its next attempt with ScheduleRetry, available at once in the queue it
// came from, under an id newID draws at the transaction's time. It
// returns the new attempts, and f to pass for the next page (more false
// when this page was the last).
func RedrivePage(ctx context.Context, tx Tx, f JobFilter, newID func(now time.Time) ulid.ULID) (next []Job, page JobFilter, more bool, err error) {
	rows, err := tx.ListJobs(ctx, f)
	if err != nil {
		return nil, f, false, err
	}
	now, err := tx.Now(ctx)
	if err != nil {
		return nil, f, false, err
	}
	for _, j := range rows {
		if j.DeadFrom == "" {
			continue
		}
		n, err := tx.ScheduleRetry(ctx, j.ID, newID(now), 0)
		if err != nil {
			return nil, f, false, err
		}
		next = append(next, n)
	}
	if len(rows) > 0 {
		f.After = rows[len(rows)-1].ID
	}
	return next, f, len(rows) == f.Limit && f.Limit > 0, nil
}
