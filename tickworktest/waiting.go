package tickworktest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickwork/tickwork/store"
)

// waiting returns the jobs that wait to run, scheduled or available, in id
// order.
func waiting(ctx context.Context, tx store.Tx) ([]store.Job, error) {
	var jobs []store.Job
	for _, status := range []store.Status{store.Scheduled, store.Available} {
		f := store.JobFilter{Status: status, Limit: 1000}
		for {
			page, err := tx.ListJobs(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("list %s jobs: %w", status, err)
			}
			jobs = append(jobs, page...)
			if len(page) < f.Limit {
				break
			}
			f.After = page[len(page)-1].ID
		}
	}
	slices.SortFunc(jobs, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
	return jobs, nil
}

// kitWaiting is waiting in a transaction of the kit's store.
func (k *Kit) kitWaiting(ctx context.Context) ([]store.Job, error) {
	var jobs []store.Job
	err := k.st.InTx(ctx, func(tx store.Tx) error {
		var err error
		jobs, err = waiting(ctx, tx)
		return err
	})
	return jobs, err
}

// nextWaiting returns the earliest scheduled time of a job waiting on a
// queue with a handler: a time not after now when one is due.
func (k *Kit) nextWaiting(ctx context.Context) (time.Time, bool, error) {
	jobs, err := k.kitWaiting(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	handled := k.w.HandledQueues()
	var next time.Time
	for _, j := range jobs {
		if slices.Contains(handled, j.Queue) && (next.IsZero() || j.ScheduledAt.Before(next)) {
			next = j.ScheduledAt
		}
	}
	return next, !next.IsZero(), nil
}

// waitingSummary says which jobs wait, for failure messages.
func (k *Kit) waitingSummary(ctx context.Context) string {
	jobs, err := k.kitWaiting(ctx)
	if err != nil {
		return fmt.Sprintf("(the waiting jobs could not be listed: %v)", err)
	}
	return describe(jobs, k.w.HandledQueues())
}

// describe lists jobs, at most a few, one a line, marking those on queues
// without a handler when handled is not nil.
func describe(jobs []store.Job, handled []string) string {
	if len(jobs) == 0 {
		return "no job waits"
	}
	const most = 10
	var b strings.Builder
	fmt.Fprintf(&b, "%d jobs wait:", len(jobs))
	for i, j := range jobs {
		if i == most {
			fmt.Fprintf(&b, "\n\t… and %d more", len(jobs)-most)
			break
		}
		fmt.Fprintf(&b, "\n\t%s", line(j))
		if handled != nil && !slices.Contains(handled, j.Queue) {
			b.WriteString(" (no handler for its queue)")
		}
	}
	return b.String()
}

// line describes one job.
func line(j store.Job) string {
	return fmt.Sprintf("%s on queue %q, attempt %d, %s, scheduled at %s, payload %s", j.ID, j.Queue, j.Attempt, j.Status, stamp(j.ScheduledAt), j.Payload)
}

// stamp formats a time as the store keeps it, to the microsecond.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00") }
