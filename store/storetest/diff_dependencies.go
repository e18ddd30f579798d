package storetest

import (
	"context"
	"slices"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// drawParents gives some jobs of a batch parents, a third of the time:
// known jobs (which may have ended, been retried or deleted), earlier
// jobs of the batch, or now and then an unknown id; some run anyway. A
// job given parents loses its unique key one time in two, and keeps it
// (ErrInvalid) otherwise only when the draw is for an invalid input.
func (d *diff) drawParents(rt *rapid.T, jobs []store.NewJob) {
	for i := range jobs {
		if rapid.IntRange(0, 2).Draw(rt, "has parents") != 0 {
			continue
		}
		j := &jobs[i]
		for range rapid.IntRange(1, 3).Draw(rt, "parents") {
			p := d.pickJob(rt)
			if i > 0 && rapid.Bool().Draw(rt, "parent in the batch") {
				p = jobs[rapid.IntRange(0, i-1).Draw(rt, "batch parent")].ID
			}
			j.Parents = append(j.Parents, p)
		}
		j.RunAnyway = rapid.IntRange(0, 3).Draw(rt, "run anyway") == 0
		if rapid.IntRange(0, 19).Draw(rt, "parents with a unique key") != 0 {
			j.UniqueKey, j.UniqueStates, j.UniquePeriod = "", 0, 0
		}
	}
}

func drawSettle(*rapid.T, *diff) op {
	return op{"settleWaitingJobs", func(ctx context.Context, tx store.Tx) (string, error) {
		jobs, err := tx.SettleWaitingJobs(ctx)
		return fmtJobs(jobs), err
	}}
}

// waitingParent returns, to aim at, a parent some waiting row waits for.
func (d *diff) waitingParent(rt *rapid.T) (ulid.ULID, bool) {
	rows := slices.DeleteFunc(d.last.JobsIn(store.Waiting), func(j store.Job) bool { return len(j.Parents) == 0 }) // not a callback
	if len(rows) == 0 {
		return ulid.ULID{}, false
	}
	j := rapid.SampledFrom(rows).Draw(rt, "waiting row")
	return rapid.SampledFrom(j.Parents).Draw(rt, "its parent"), true
}

// drawCancel cancels a job: half the time a parent a waiting row waits
// for, so that cancels settle chains; half the time only from a status
// drawn (CancelJobFrom), which may not be the job's.
func drawCancel(rt *rapid.T, d *diff) op {
	id, ok := d.waitingParent(rt)
	if !ok || rapid.Bool().Draw(rt, "cancel any job") {
		id = d.pickJob(rt)
	}
	from := rapid.SampledFrom([]store.Status{"", "", store.Scheduled, store.Available, store.Running, store.Waiting}).Draw(rt, "from")
	return op{"cancelJob " + id.String() + " from " + string(from), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.CancelJobFrom(ctx, id, from)
		return store.FormatJob(j), err
	}}
}

// drawDelete deletes a job: half the time a parent a waiting row waits
// for, which stays, else any job, which goes only if it ended.
func drawDelete(rt *rapid.T, d *diff) op {
	id, ok := d.waitingParent(rt)
	if !ok || rapid.Bool().Draw(rt, "delete any job") {
		id = d.pickJob(rt)
	}
	return op{"deleteJob " + id.String(), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.DeleteJob(ctx, id)
		return store.FormatJob(j), err
	}}
}
