package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// The differential's draws of the batch calls of Client.Bulk.

// drawBulkIDs draws up to five job ids for a batch: rows of the status
// the action is for, any job (an unknown id included), repeats allowed.
func (d *diff) drawBulkIDs(rt *rapid.T, want ...store.Status) []ulid.ULID {
	ids := make([]ulid.ULID, rapid.IntRange(0, 5).Draw(rt, "batch"))
	for i := range ids {
		ids[i] = d.pickJob(rt)
		if rapid.Bool().Draw(rt, "aimed") {
			if j := d.pickRow(rt, rapid.SampledFrom(want).Draw(rt, "aimed at")); j != nil {
				ids[i] = j.ID
			}
		}
	}
	return ids
}

// fmtOutcomes formats a batch's outcomes by error category, so that the
// stores' refusals compare by meaning.
func fmtOutcomes(errs []error) string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = errorCategory(err)
	}
	return strings.Join(out, ", ")
}

func drawRetryJobs(rt *rapid.T, d *diff) op {
	ids := d.drawBulkIDs(rt, store.Failed, store.Lost)
	newIDs := make([]ulid.ULID, len(ids))
	for i := range newIDs {
		newIDs[i] = d.newJobID(rt)
	}
	return op{fmt.Sprintf("retryJobs %v as %v", ids, newIDs), func(ctx context.Context, tx store.Tx) (string, error) {
		errs, err := tx.RetryJobs(ctx, ids, newIDs, 0)
		return fmtOutcomes(errs), err
	}}
}

// drawCancelJobs cancels a batch, each row from a status drawn, most often
// the one it is in: what a bulk cancel reads.
func drawCancelJobs(rt *rapid.T, d *diff) op {
	ids := d.drawBulkIDs(rt, store.Waiting, store.Available, store.Scheduled, store.Running)
	from := d.drawFrom(rt, ids, store.Scheduled, store.Available, store.Running, store.Waiting)
	return op{fmt.Sprintf("cancelJobsFrom %v from %v", ids, from), func(ctx context.Context, tx store.Tx) (string, error) {
		errs, err := tx.CancelJobsFrom(ctx, ids, from)
		return fmtOutcomes(errs), err
	}}
}

func drawDeleteJobs(rt *rapid.T, d *diff) op {
	ids := d.drawBulkIDs(rt, store.Completed, store.Failed, store.Cancelled, store.Lost)
	from := d.drawFrom(rt, ids, store.Running, store.Completed, store.Failed, store.Cancelled, store.Lost)
	return op{fmt.Sprintf("deleteJobs %v from %v", ids, from), func(ctx context.Context, tx store.Tx) (string, error) {
		errs, err := tx.DeleteJobs(ctx, ids, from)
		return fmtOutcomes(errs), err
	}}
}

// drawFrom draws, for each of ids, the status a bulk batch read it in:
// most often the one it is in, else "" (any) or one of others, which a
// row that moved on since shows.
func (d *diff) drawFrom(rt *rapid.T, ids []ulid.ULID, others ...store.Status) []store.Status {
	from := make([]store.Status, len(ids))
	for i, id := range ids {
		at := slices.IndexFunc(d.last.Jobs, func(j store.Job) bool { return j.ID == id })
		if at >= 0 && rapid.IntRange(0, 3).Draw(rt, "as read") > 0 {
			from[i] = d.last.Jobs[at].Status
		} else {
			from[i] = rapid.SampledFrom(append([]store.Status{""}, others...)).Draw(rt, "from")
		}
	}
	return from
}
