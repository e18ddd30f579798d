package props

import (
	"testing"
	"time"
)

// enqueueSeq inserts attempt 0 of job n in sequence k at place pos, due
// at once.
func (b *builder) enqueueSeq(n int, k string, pos int64) change {
	return b.insertJob(JobRow{ID: job(n), Queue: "q", Status: Available, CreatedAt: b.now, ScheduledAt: b.now,
		Sequence: JobSequence{Key: k, Pos: pos}})
}

// retryInPlace links job n to a new attempt m, due after delay, that
// keeps n's place (as a store does; builder.retry keeps no sequence).
func (b *builder) retryInPlace(n, m int, delay time.Duration) change {
	prev := b.jobs[job(n)]
	seq := prev.Sequence
	seq.Skipped = false
	status := Available
	if delay > 0 {
		status = Scheduled
	}
	ins := b.insertJob(JobRow{ID: job(m), Queue: prev.Queue, Status: status, Attempt: prev.Attempt + 1,
		CreatedAt: b.now, ScheduledAt: b.now.Add(delay), Sequence: seq})
	link := b.setJob(job(n), func(r *JobRow) { r.NextAttemptID = job(m) })
	return func(e *Event) { ins(e); link(e) }
}

// skipJob marks job n skipped, as an operator's SkipJob does.
func (b *builder) skipJob(n int) change {
	return b.setJob(job(n), func(r *JobRow) { r.Sequence.Skipped = true })
}

// threeInSequence enqueues jobs 1 to 3 of sequence s in place order, and
// job 4 of sequence t.
func threeInSequence(b *builder) {
	setup(b)
	b.commit(none, b.enqueueSeq(1, "s", 1), b.enqueueSeq(2, "s", 2), b.enqueueSeq(3, "s", 3), b.enqueueSeq(4, "t", 1))
}

var sequenceViolationCases = []violationCase{
	{"a sequence's second job started beside its first", SequenceExclusive, `sequence "s" started while job 01000000000000000000000002`, func(b *builder) int {
		threeInSequence(b)
		b.commit(w1, b.reserve(1, w1))
		b.commit(w1, b.complete(1))
		b.commit(w1, b.reserve(2, w1))
		return atNext(b, func() { b.commit(w2, b.reserve(3, w2)) })
	}},
	{"a sequence's second job started before its first", SequenceOrder, "at place 2 started before job 01000000000000000000000001 at place 1, which is available", func(b *builder) int {
		threeInSequence(b)
		return atNext(b, func() { b.commit(w1, b.reserve(2, w1)) })
	}},
	{"a job enqueued after another placed before it", SequenceOrder, "enqueued at place 1, not after job 01000000000000000000000001 at place 1", func(b *builder) int {
		setup(b)
		b.commit(none, b.enqueueSeq(1, "s", 1))
		return atNext(b, func() { b.commit(none, b.enqueueSeq(2, "s", 1)) })
	}},
	{"a batch with one place twice", SequenceOrder, "enqueued at place 1, not after job 01000000000000000000000002 at place 1", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.commit(none, b.enqueueSeq(1, "s", 1), b.enqueueSeq(2, "s", 1)) })
	}},
	{"a retry that lost its place", SequenceOrder, "follows job 01000000000000000000000001 of sequence \"s\" at place 1 but has place 4", func(b *builder) int {
		threeInSequence(b)
		b.commit(w1, b.reserve(1, w1))
		return atNext(b, func() {
			b.commit(w1, b.fail(1, "once"), b.retryInPlace(1, 5, 5*time.Second), b.setJob(job(5), func(r *JobRow) { r.Sequence.Pos = 4 }))
		})
	}},
	{"a job started behind a halting one", SequenceHalt, "halts the sequence (failed: \"for good\")", func(b *builder) int {
		threeInSequence(b)
		b.commit(w1, b.reserve(1, w1))
		b.commit(w1, b.fail(1, "for good"))
		return atNext(b, func() { b.commit(w1, b.reserve(2, w1)) })
	}},
}

// TestSequencesAllowWhatTheyShould: a sequence run in order, halted and
// released by a skip or a retry, and one that continues on failure, are
// clean; a job held by its sequence is not one a pass could have taken,
// nor one a smaller priority number must go before, and one behind a
// halting job may stay available at the end.
func TestSequencesAllowWhatTheyShould(t *testing.T) {
	for name, build := range map[string]func(b *builder){
		"in order, halted, skipped, retried in place": func(b *builder) {
			b.params.SerialTransactions = true
			threeInSequence(b)
			b.commit(w1, b.reserve(1, w1), b.reserve(4, w1))
			b.commit(w1, b.complete(1), b.complete(4))
			b.commit(w1, b.reserve(2, w1))
			b.commit(w1, b.fail(2, "for good"))
			b.commit(none, b.skipJob(2))
			b.commit(w1, b.reserve(3, w1))
			b.commit(w1, b.fail(3, "for good"))
			b.commit(none, b.retryInPlace(3, 5, 0))
			b.commit(w1, b.reserve(5, w1))
		},
		"continues on failure": func(b *builder) {
			setup(b)
			b.commit(none, b.enqueueSeq(1, "s", 1), b.enqueueSeq(2, "s", 2),
				b.setJob(job(1), func(r *JobRow) { r.Sequence.Continues = true }))
			b.commit(w1, b.reserve(1, w1))
			b.commit(w1, b.fail(1, "for good"))
			b.commit(w1, b.reserve(2, w1))
		},
		"a pass and a priority leave held jobs": func(b *builder) {
			wakePassBounds(b)
			setup(b)
			b.commit(none, b.enqueueSeq(1, "s", 1), b.enqueueSeq(2, "s", 2), b.setJob(job(1), func(r *JobRow) { r.Priority = 5 }),
				b.enqueuePartition(3, ""))
			b.commit(w2, b.reserve(1, w2))
			b.event(Waiting, w1, nil)
			b.event(TickStarted, w1, func(e *Event) { e.Reason = "sleep" })
			b.pass(w1, 2, 0)
			b.commit(w1, b.reserve(3, w1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			build(b)
			for _, v := range mustCheck(t, b.history()) {
				if v.Property >= SequenceExclusive {
					t.Errorf("violation in a good history: %v", v)
				}
			}
		})
	}
}

// TestHaltedJobsAreNotLost: a job left available behind a job that
// halts its sequence is no lost job; one whose sequence is free is.
func TestHaltedJobsAreNotLost(t *testing.T) {
	for _, halted := range []bool{true, false} {
		b := newBuilder()
		threeInSequence(b)
		b.commit(w1, b.reserve(1, w1), b.reserve(4, w1))
		b.commit(w1, b.fail(1, "for good"), b.complete(4))
		if !halted {
			b.commit(none, b.skipJob(1))
		}
		b.after(time.Minute)
		lost := 0
		for _, v := range mustCheck(t, b.history()) {
			if v.Property == NoLostJobs && v.Message != "" && v.Jobs != nil && v.Jobs[0].Sequence.Key == "s" && v.Jobs[0].ID != job(1) {
				lost++
			}
		}
		if want := map[bool]int{true: 0, false: 2}[halted]; lost != want {
			t.Errorf("halted %t: %d of the sequence's waiting jobs reported lost, want %d", halted, lost, want)
		}
	}
}

// TestChildrenOfHaltedJobsAreNotLost: a job that waits for a job held
// behind a halted sequence, or for such a waiting job in turn, waits for
// the same operator and is no lost job; once the sequence is released it
// is.
func TestChildrenOfHaltedJobsAreNotLost(t *testing.T) {
	for _, halted := range []bool{true, false} {
		b := newBuilder()
		threeInSequence(b)
		b.commit(none, b.enqueueChild(5, false, 2))
		b.commit(none, b.enqueueChild(6, true, 5))
		b.commit(w1, b.reserve(1, w1), b.reserve(4, w1))
		b.commit(w1, b.fail(1, "for good"), b.complete(4))
		if !halted {
			b.commit(none, b.skipJob(1))
		}
		b.after(time.Minute)
		lost := 0
		for _, v := range mustCheck(t, b.history()) {
			if v.Property == NoLostJobs && v.Jobs != nil && (v.Jobs[0].ID == job(5) || v.Jobs[0].ID == job(6)) {
				lost++
			}
		}
		if want := map[bool]int{true: 0, false: 2}[halted]; lost != want {
			t.Errorf("halted %t: %d of the waiting children reported lost, want %d", halted, lost, want)
		}
	}
}
