package worker

import (
	"fmt"
	"slices"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// After makes the enqueued jobs wait, in status store.Waiting, until
// every job in ids has completed (an id of any attempt of a job stands
// for the job: a retry or a snooze of a parent takes its place). When a
// parent fails for good or is cancelled, the waiting job is cancelled
// with a reason naming that parent, unless RunAnyway is given too. A
// parent must exist: an unknown id is an error naming it and nothing is
// written. A job with parents cannot be unique (WithUniqueKey).
func After(ids ...ulid.ULID) EnqueueOption {
	return func(o *enqueueOptions) { o.after.ids = append(o.after.ids, ids...) }
}

// AfterInBatch gives each payload of an EnqueueMany its parents within the
// batch: parents(i) returns the indexes of the earlier payloads payload i
// waits for, as After does for ids (with After as well, it waits for
// both). An index that is not an earlier payload's is an error.
func AfterInBatch(parents func(i int) []int) EnqueueOption {
	return func(o *enqueueOptions) { o.after.inBatch = parents }
}

// RunAnyway, with After or AfterInBatch, runs a job once its parents have
// all ended even if one failed for good or was cancelled, instead of
// cancelling it.
func RunAnyway() EnqueueOption {
	return func(o *enqueueOptions) { o.after.anyway = true }
}

// afterOptions is what After, AfterInBatch and RunAnyway asked for.
type afterOptions struct {
	ids     []ulid.ULID
	inBatch func(int) []int
	anyway  bool
}

// batchParents returns the earlier payloads payload i waits for.
func (a afterOptions) batchParents(i int) ([]int, error) {
	if a.inBatch == nil {
		return nil, nil
	}
	parents := a.inBatch(i)
	for _, k := range parents {
		if k < 0 || k >= i {
			return nil, fmt.Errorf("worker: payload %d waits for payload %d, which is not an earlier one of the batch: %w", i, k, store.ErrInvalid)
		}
	}
	return parents, nil
}

// apply gives job i of a batch its parents given by id and whether it
// runs anyway; the batch's own parents get their ids at insert
// (withBatchParents).
func (a afterOptions) apply(i int, j *store.NewJob) error {
	batch, err := a.batchParents(i)
	if err != nil {
		return err
	}
	j.Parents = slices.Clone(a.ids)
	j.RunAnyway = a.anyway && (len(j.Parents) > 0 || len(batch) > 0)
	return nil
}

// validated is j as store.ValidateNewJob can judge it before the batch's
// ids exist: a job whose parents are all in the batch has none yet.
func (a afterOptions) validated(j store.NewJob) store.NewJob {
	if len(j.Parents) == 0 {
		j.RunAnyway = false
	}
	return j
}

// withBatchParents sets, once the batch's jobs have their ids, each one's
// parents: After's ids, then the earlier jobs it waits for.
func (a afterOptions) withBatchParents(jobs []store.NewJob) {
	for i := range jobs {
		batch, _ := a.batchParents(i) // checked by apply
		if len(batch) == 0 {
			continue
		}
		jobs[i].Parents = slices.Clone(a.ids)
		for _, k := range batch {
			if !slices.Contains(jobs[i].Parents, jobs[k].ID) {
				jobs[i].Parents = append(jobs[i].Parents, jobs[k].ID)
			}
		}
	}
}
