package sim

import (
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of batches: with the Batches kind on, a share of the
// enqueue transactions (its rate) insert their jobs as the members of
// one batch, with one more job, on a random queue, as its callback.
// Members keep whatever else they drew (parents, a sequence) but their
// unique key, which no batch's job may have. Handler outcomes, rescues
// and operator cancels, drawn as before, then end the members in every
// way. Its own source, so that seeds without it draw as before.

// drawBatch makes jobs, about to be inserted, the members of a batch and
// returns them with its callback appended, or returns jobs unchanged.
func (s *sim) drawBatch(jobs []store.NewJob) []store.NewJob {
	if !s.on(Batches) || len(jobs) == 0 {
		return jobs
	}
	br := s.clientRand(Batches)
	if !br.Chance(s.rate(Batches)) {
		return jobs
	}
	cb := store.NewJob{ID: clockrng.NewULID(s.storeNow(), s.client), Queue: s.cfg.Queues[br.IntN(s.sc.Queues)],
		Payload: []byte(`{"callback":true}`), Callback: true}
	for i := range jobs {
		jobs[i].Batch = cb.ID
		jobs[i].UniqueKey, jobs[i].UniqueStates, jobs[i].UniquePeriod = "", 0, 0
	}
	s.count(Batches)
	return append(jobs, cb)
}

// batchSeen is what a batch's members went through, for its marks.
type batchSeen uint8

const (
	batchRescued batchSeen = 1 << iota
	batchCancelled
	batchRetried
)

// batchMarks notes, when a callback is released, the batch whose member
// was rescued from a dead worker, cancelled or retried.
func (s *sim) batchMarks(ch props.JobChange) {
	b, a := ch.Before, ch.After
	if a == nil {
		return
	}
	if a.Batch != (ulid.ULID{}) && (b == nil || b.Status != a.Status) {
		s.noteMember(a)
	}
	if b == nil || b.Status != props.Awaiting || a.CallbackOf != a.ID || a.Status == props.Cancelled {
		return
	}
	s.res.Marks.set(MarkBatchReleased)
	seen := s.batches[a.ID]
	delete(s.batches, a.ID)
	if seen&batchRescued != 0 {
		s.res.Marks.set(MarkBatchAfterRescue)
	}
	if seen&batchCancelled != 0 {
		s.res.Marks.set(MarkBatchCancelledMember)
	}
	if seen&batchRetried != 0 {
		s.res.Marks.set(MarkBatchRetriedMember)
	}
}

// noteMember records what a member row's new status says of its batch.
func (s *sim) noteMember(a *props.JobRow) {
	var seen batchSeen
	switch {
	case a.Status == props.Lost:
		seen = batchRescued
	case a.Status == props.Cancelled:
		seen = batchCancelled
	case a.Attempt > 0 && a.Status == props.Running:
		seen = batchRetried
	}
	if seen != 0 {
		if s.batches == nil {
			s.batches = map[ulid.ULID]batchSeen{}
		}
		s.batches[a.Batch] |= seen
	}
}
