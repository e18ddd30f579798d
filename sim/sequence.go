package sim

import (
	"errors"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// The workload of sequences: with the Sequences kind on, most enqueued
// jobs without a partition key join one of a few sequences, a quarter of
// them continuing on failure, so that sequences build backlogs behind
// running, retried and failed heads across queues and workers; and an
// operator now and then releases a halted sequence during chaos, half
// the time by retrying its halting job (which keeps its place), half by
// skipping it. A sequence still halted when chaos ends stays so: its
// waiting jobs are excused from property 4. Its own fault kind and
// source, so that seeds without it draw as before.

// sequenceKeys are the sequences drawn.
var sequenceKeys = []string{"s1", "s2", "s3"}

// drawSequence puts j in a sequence when Sequences is on and j has no
// partition key: three times in four, a quarter of those continuing on
// failure.
func (s *sim) drawSequence(j *store.NewJob) {
	if !s.on(Sequences) || j.PartitionKey != "" {
		return
	}
	r := s.clientRand(Sequences)
	if !r.Chance(0.75) {
		return
	}
	j.SequenceKey = sequenceKeys[r.IntN(len(sequenceKeys))]
	j.SequenceContinues = r.Chance(0.25)
}

// releaseSequence has the operator release one of the halted sequences,
// if any, by a skip of the job that halts it.
func (s *sim) releaseSequence() {
	defer s.armGlobalFault(Sequences, evSequenceRelease)
	halting := s.checker.HaltingJobs()
	if s.phase != chaos || len(halting) == 0 {
		return
	}
	r := s.clientRand(Sequences)
	id := halting[r.IntN(len(halting))]
	var released bool
	err := s.storeTx(func(tx store.Tx) error {
		_, err := tx.SkipJob(s.ctx, id)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			// Another transaction released or deleted it meanwhile (only
			// transactions that overlap): nothing to do.
			return nil
		}
		released = err == nil
		return err
	})
	if err != nil {
		s.stop(nil, err)
		return
	}
	if released {
		s.count(Sequences)
		s.res.Marks.set(MarkSequenceReleased)
	}
}

// sequenceMark notes a commit that left a job halting its sequence with a
// later job of the sequence waiting. Once noted, it costs nothing more.
func (s *sim) sequenceMark(e *props.Event) {
	if len(e.Jobs) == 0 || s.res.Marks.Has(MarkSequenceHalted) || !s.on(Sequences) { // most events change no job
		return
	}
	for _, ch := range e.Jobs {
		if a := ch.After; a != nil && (a.Status == props.Failed || a.Status == props.Lost) && s.checker.HaltsBefore(a.ID) {
			s.res.Marks.set(MarkSequenceHalted)
			return
		}
	}
}

// releaseNote is the notification a store sends when a skip (before to
// after) released a sequence whose next job is available (store.Tx's
// SkipJob), as the rows of next show it.
func releaseNote(next store.State, before, after *store.Job) (store.Notification, bool) {
	if before == nil || after == nil || !before.Halts() || !after.Sequence.Skipped {
		return store.Notification{}, false
	}
	var head *store.Job
	for i := range next.Jobs {
		if j := &next.Jobs[i]; j.Sequence.Key == after.Sequence.Key && j.HoldsSequence() && (head == nil || j.Sequence.Pos < head.Sequence.Pos) {
			head = j
		}
	}
	if head == nil || head.Status != store.Available {
		return store.Notification{}, false
	}
	return store.Notification{Channel: store.ChannelAvailable, Queue: head.Queue}, true
}
