package storetest

import (
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// drawBatch makes the jobs of an insert the members of a batch, a
// quarter of the time, with one more job as its callback: the members
// lose their unique key but one time in twenty (ErrInvalid); now and
// then a member names no callback of the insert (ErrInvalid too).
func (d *diff) drawBatch(rt *rapid.T, jobs []store.NewJob) []store.NewJob {
	if len(jobs) == 0 || rapid.IntRange(0, 3).Draw(rt, "a batch") != 0 {
		return jobs
	}
	cb := d.drawNewJob(rt)
	cb.Callback, cb.UniqueKey, cb.UniqueStates, cb.UniquePeriod = true, "", 0, 0
	cb.Parents, cb.RunAnyway, cb.SequenceKey, cb.SequenceContinues = nil, false, "", false
	for i := range jobs {
		jobs[i].Batch = cb.ID
		if rapid.IntRange(0, 19).Draw(rt, "member with a unique key") != 0 {
			jobs[i].UniqueKey, jobs[i].UniqueStates, jobs[i].UniquePeriod = "", 0, 0
		}
	}
	if rapid.IntRange(0, 19).Draw(rt, "a member of no callback") == 0 {
		jobs[0].Batch = d.newJobID(rt)
	}
	return append(jobs, cb)
}
