package sim

import (
	"errors"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of dependencies: with the Dependencies kind on, a share of
// the enqueued jobs (its rate) wait for one to three parents, each an
// earlier job of the same batch or one of the last rows inserted (which
// may have ended, or failed and be retried), a quarter of them running
// anyway. Handler failures and operator cancels, drawn as before, then
// end parents without completing. Its own source, so that seeds without
// it draw as before.

// recentParents is how many of the latest rows a job may wait for.
const recentParents = 8

// drawParents gives some of jobs parents; a job with parents loses its
// unique key and its sequence, which no job with parents may have.
func (s *sim) drawParents(jobs []store.NewJob) {
	if !s.on(Dependencies) {
		return
	}
	r := s.clientRand(Dependencies)
	recent := s.inserted[max(0, len(s.inserted)-recentParents):]
	for i := range jobs {
		if !r.Chance(s.rate(Dependencies)) || i == 0 && len(recent) == 0 {
			continue
		}
		j := &jobs[i]
		for range 1 + r.IntN(3) {
			var p ulid.ULID
			if i > 0 && (len(recent) == 0 || r.Chance(0.5)) {
				p = jobs[r.IntN(i)].ID
			} else {
				p = recent[r.IntN(len(recent))]
			}
			if !slices.Contains(j.Parents, p) {
				j.Parents = append(j.Parents, p)
			}
		}
		j.RunAnyway = r.Chance(0.25)
		j.UniqueKey, j.UniqueStates, j.UniquePeriod = "", 0, 0
		j.SequenceKey, j.SequenceContinues = "", false
		s.count(Dependencies)
	}
}

// existingParents returns jobs with the parents that tx does not hold
// (deleted by retention since they were drawn) left out, copying only
// what it changes.
func (s *sim) existingParents(tx store.Tx, jobs []store.NewJob) ([]store.NewJob, error) {
	out := jobs
	for i, j := range jobs {
		kept := j.Parents[:0:0]
		for _, p := range j.Parents {
			_, err := tx.GetJob(s.ctx, p)
			switch {
			case err == nil || slices.ContainsFunc(jobs[:i], func(b store.NewJob) bool { return b.ID == p }):
				kept = append(kept, p)
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
		}
		if len(kept) == len(j.Parents) {
			continue
		}
		if &out[0] == &jobs[0] {
			out = slices.Clone(jobs)
		}
		out[i].Parents, out[i].RunAnyway = kept, out[i].RunAnyway && len(kept) > 0
	}
	return out, nil
}

// joinIDs is props.JobRow's form of a row's parents.
func joinIDs(ids []ulid.ULID) string {
	if len(ids) == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(len(ids)*(ulid.EncodedSize+1) - 1)
	var text [ulid.EncodedSize]byte
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = id.MarshalTextTo(text[:]) // fails only on a short buffer
		b.Write(text[:])
	}
	return b.String()
}

// dependencyMarks notes a job released when its last parent completed
// and one cancelled because a parent ended without completing.
func (s *sim) dependencyMarks(ch props.JobChange) {
	b, a := ch.Before, ch.After
	if a == nil || b != nil && b.Status != props.Awaiting {
		return
	}
	switch {
	case a.Status == props.Cancelled && strings.HasPrefix(a.FailedReason, "parent "):
		s.res.Marks.set(MarkDependentCancelled)
	case b != nil && (a.Status == props.Available || a.Status == props.Scheduled):
		s.res.Marks.set(MarkDependentReleased)
	}
}
