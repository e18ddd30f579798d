package storetest

import (
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertSequenced inserts, in one batch and in the order given, an
// available job of queue per key of keys (the sequence keys), with ids
// made in reverse, so that enqueue order and id order disagree.
func (h *harness) insertSequenced(queue string, continues bool, keys ...string) []ulid.ULID {
	h.t.Helper()
	ids := make([]ulid.ULID, len(keys))
	for i := range keys {
		ids[len(keys)-1-i] = h.newID()
	}
	batch := make([]store.NewJob, len(keys))
	for i, k := range keys {
		batch[i] = store.NewJob{ID: ids[i], Queue: queue, Payload: payload(i), SequenceKey: k, SequenceContinues: continues}
	}
	h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, batch); return err })
	return ids
}

// skip skips job id, wanting no error.
func (h *harness) skip(id ulid.ULID) store.Job {
	h.t.Helper()
	var j store.Job
	h.do(func(tx store.Tx) (err error) { j, err = tx.SkipJob(h.ctx, id); return err })
	return j
}

// failForGood reserves job id (the head of its sequence) and fails it.
func (h *harness) failForGood(w, id ulid.ULID) {
	h.t.Helper()
	h.wantTook(h.reserve(w, 1, "q"), "the head before it fails", id)
	h.fail(w, id, "for good")
}

// wantHead fails unless job want heads sequence key.
func (h *harness) wantHead(key string, want ulid.ULID) {
	h.t.Helper()
	var head store.Job
	h.do(func(tx store.Tx) (err error) { head, err = tx.SequenceHead(h.ctx, key); return err })
	if head.ID != want {
		h.t.Fatalf("head of sequence %s is %s, want %s", key, head.ID, want)
	}
}

var sequenceCases = []testCase{
	{"SequenceRunsInEnqueueOrderOneAtATime", func(h *harness) {
		w, v := h.worker(), h.worker()
		j := h.insertSequenced("q", false, "s", "s", "s", "t", "")
		h.wantTook(h.reserve(w, 10, "q"), "the heads of s and t and the job without a sequence", j[0], j[3], j[4])
		h.wantTook(h.reserve(v, 10, "q"), "another worker while s's head runs", []ulid.ULID{}...)
		h.complete(w, j[0])
		h.wantTook(h.reserve(v, 10, "q"), "after s's head completed", j[1])
		if got := h.job(j[2]).Sequence; got.Key != "s" || got.Pos != 3 {
			h.t.Fatalf("third job's sequence %v, want key s at place 3", got)
		}
	}},
	{"SequenceSpansQueues", func(h *harness) {
		w := h.worker()
		a := h.insertSequenced("r", false, "s")
		b := h.insertSequenced("q", false, "s")
		h.wantTook(h.reserve(w, 10, "q"), "q, whose job waits for r's", []ulid.ULID{}...)
		h.wantTook(h.reserve(w, 10, "q", "r"), "both queues", a[0])
		h.complete(w, a[0])
		h.wantTook(h.reserve(w, 10, "q"), "q after r's job completed", b[0])
	}},
	{"SequenceHeadKeepsItsPlaceThroughRetryAndSnooze", func(h *harness) {
		w := h.worker()
		j := h.insertSequenced("q", false, "s", "s")
		h.reserve(w, 1, "q")
		h.fail(w, j[0], "once")
		retried := h.retry(j[0], 0)
		h.wantTook(h.reserve(w, 10, "q"), "the retry of the head", retried.ID)
		snoozed := h.snooze(w, retried.ID, 0)
		if snoozed.Sequence.Pos != 1 || snoozed.Sequence.Key != "s" {
			h.t.Fatalf("snoozed row's sequence %v, want s at place 1", snoozed.Sequence)
		}
		h.wantTook(h.reserve(w, 10, "q"), "the snoozed head", snoozed.ID)
		lost := h.declareDead(w)
		if len(lost) != 1 || lost[0].ID != snoozed.ID {
			h.t.Fatalf("rescued %v, want the head %s", lost, snoozed.ID)
		}
		v := h.worker()
		h.wantTook(h.reserve(v, 10, "q"), "a lost head without a retry halts its sequence", []ulid.ULID{}...)
		again := h.retry(snoozed.ID, time.Hour)
		h.wantTook(h.reserve(v, 10, "q"), "a head retried later still holds its place", []ulid.ULID{}...)
		h.cancel(again.ID)
		h.wantTook(h.reserve(v, 10, "q"), "after the head was cancelled", j[1])
	}},
	{"AFailedJobHaltsItsSequenceUntilSkippedOrRetried", func(h *harness) {
		w := h.worker()
		j := h.insertSequenced("q", false, "s", "s", "s")
		h.failForGood(w, j[0])
		h.wantTook(h.reserve(w, 10, "q"), "a halted sequence", []ulid.ULID{}...)
		h.wantHead("s", j[0])
		if !h.job(j[0]).Halts() {
			h.t.Fatalf("failed head %v does not halt its sequence", h.job(j[0]))
		}
		h.clock.Advance(48 * time.Hour)
		if n := h.deleteOldJobs(time.Hour); n != 0 {
			h.t.Fatalf("retention deleted %d jobs, want the halting job kept", n)
		}
		retried := h.retry(j[0], 0)
		h.wantTook(h.reserve(w, 10, "q"), "after the operator retried the head", retried.ID)
		h.fail(w, retried.ID, "again")
		ch := h.listen()
		skipped := h.skip(retried.ID)
		h.wantNotes(ch, available("q"))
		if !skipped.Sequence.Skipped || skipped.Status != store.Failed || skipped.Halts() {
			h.t.Fatalf("skipped row %v, want failed, skipped, halting nothing", skipped)
		}
		h.wantTook(h.reserve(w, 10, "q"), "after the operator skipped it", j[1])
		h.wantHead("s", j[1])
		h.complete(w, j[1])
		h.wantHead("s", j[2])
		h.complete(w, h.reserve(w, 1, "q")[0].ID)
		h.wantErr(h.tx(func(tx store.Tx) error { _, err := tx.SequenceHead(h.ctx, "s"); return err }), store.ErrNotFound, "the head of a sequence done")
		h.clock.Advance(time.Second)
		if n := h.deleteOldJobs(0); n != 3 {
			h.t.Fatalf("retention deleted %d jobs, want the failed head and the two completed", n)
		}
		if n := h.deleteOldJobs(0); n != 1 {
			h.t.Fatalf("the next retention deleted %d jobs, want the skipped retry, whose first attempt is gone", n)
		}
	}},
	{"ARetryOfASkippedJobIsTakenByTheNextReservation", func(h *harness) {
		// After the skip no row holds a sequence, and a reservation that
		// found none did not take heads (store/pg chose its statement
		// without them): the operator's retry brings one back.
		w := h.worker()
		j := h.insertSequenced("q", false, "s")
		h.failForGood(w, j[0])
		h.skip(j[0])
		h.wantTook(h.reserve(w, 10, "q"), "a sequence whose only job was skipped", []ulid.ULID{}...)
		retried := h.retry(j[0], 0)
		h.wantTook(h.reserve(w, 10, "q"), "the retry of the skipped job", retried.ID)
	}},
	{"ASequenceThatContinuesOnFailureGoesOn", func(h *harness) {
		w := h.worker()
		j := h.insertSequenced("q", true, "s", "s")
		h.failForGood(w, j[0])
		h.wantTook(h.reserve(w, 10, "q"), "a sequence that continues on failure", j[1])
		h.wantErr(h.tx(func(tx store.Tx) error { _, err := tx.SkipJob(h.ctx, j[0]); return err }), store.ErrConflict, "skip a job whose sequence continues")
	}},
	{"SkipRefusesWhatHaltsNothing", func(h *harness) {
		w := h.worker()
		j := h.insertSequenced("q", false, "s", "s")
		plain := h.insert("q", time.Time{})
		for _, id := range []ulid.ULID{j[0], j[1], plain} {
			h.wantErr(h.tx(func(tx store.Tx) error { _, err := tx.SkipJob(h.ctx, id); return err }), store.ErrConflict, "skip a job that halts nothing")
		}
		h.wantErr(h.tx(func(tx store.Tx) error { _, err := tx.SkipJob(h.ctx, h.newID()); return err }), store.ErrNotFound, "skip an unknown job")
		h.failForGood(w, j[0])
		h.skip(j[0])
		h.wantErr(h.tx(func(tx store.Tx) error { _, err := tx.SkipJob(h.ctx, j[0]); return err }), store.ErrConflict, "skip a job twice")
	}},
	{"SequencePlacesFollowTheLastAcrossInserts", func(h *harness) {
		w := h.worker()
		a := h.insertSequenced("q", false, "s", "t", "s")
		b := h.insertSequenced("q", false, "t", "s")
		for id, want := range map[ulid.ULID]int64{a[0]: 1, a[1]: 1, a[2]: 2, b[0]: 2, b[1]: 3} {
			if got := h.job(id).Sequence.Pos; got != want {
				h.t.Fatalf("job %s at place %d, want %d", id, got, want)
			}
		}
		h.wantTook(h.reserve(w, 10, "q"), "the heads", a[0], a[1])
	}},
	{"ALargeSequencedBatchKeepsItsOrder", func(h *harness) {
		// store/pg would copy a batch this large (COPY), which cannot
		// number a sequence.
		keys := make([]string, 200)
		for i := range keys {
			keys[i] = []string{"a", "b"}[i%2]
		}
		j := h.insertSequenced("q", false, keys...)
		w := h.worker()
		for i := 0; i < 4; i += 2 {
			h.wantTook(h.reserve(w, 100, "q"), "one head of each key", j[i], j[i+1])
			h.complete(w, j[i], j[i+1])
		}
	}},
	{"SequencesUnderQueueLimits", func(h *harness) {
		// store/pg reserves limited queues, and those with a per-key
		// limit, with statements of their own.
		w := h.worker()
		h.setLimit("q", 3)
		h.setKeyLimit("r", 1)
		q := h.insertSequenced("q", false, "s", "s", "", "")
		r := h.insertSequenced("r", false, "t", "t", "")
		h.insertKeyed("r", "k")
		h.wantTook(h.reserve(w, 10, "q"), "a queue with a limit of 3", q[0], q[2], q[3])
		got := h.reserve(w, 10, "r")
		if len(got) != 3 || h.job(r[1]).Status != store.Available {
			h.t.Fatalf("reserved %v of r, want t's head, the job without a key and the keyed one", ids(got))
		}
		h.complete(w, q[0], r[0])
		h.wantTook(h.reserve(w, 10, "q", "r"), "after both heads completed", q[1], r[1])
	}},
	{"BadSequencesAreRefused", func(h *harness) {
		bad := []store.NewJob{
			{SequenceKey: strings.Repeat("k", store.MaxSequenceKeyBytes+1)},
			{SequenceKey: "a\x00b"},
			{SequenceKey: "s", PartitionKey: "p"},
			{SequenceContinues: true},
		}
		for _, nj := range bad {
			nj.ID, nj.Queue, nj.Payload = h.newID(), "q", payload(1)
			err := h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, []store.NewJob{nj}); return err })
			h.wantErr(err, store.ErrInvalid, "insert with sequence key "+nj.SequenceKey[:min(len(nj.SequenceKey), 8)])
		}
		h.insertSequenced("q", false, strings.Repeat("k", store.MaxSequenceKeyBytes))
	}},
}
