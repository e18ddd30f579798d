package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertBatchOf inserts n members of queue "m" and their callback of
// queue "cb" in one insert, and returns the members and the callback.
func (h *harness) insertBatchOf(n int) ([]ulid.ULID, ulid.ULID) {
	h.t.Helper()
	cb := h.newID()
	var members []ulid.ULID
	var jobs []store.NewJob
	for i := range n {
		id := h.newID()
		members = append(members, id)
		jobs = append(jobs, store.NewJob{ID: id, Queue: "m", Payload: payload(i), Batch: cb})
	}
	jobs = append(jobs, store.NewJob{ID: cb, Queue: "cb", Payload: payload(0), Callback: true})
	h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, jobs); return err })
	return members, cb
}

// batch reads batch id.
func (h *harness) batch(id ulid.ULID) store.Batch {
	h.t.Helper()
	var b store.Batch
	h.do(func(tx store.Tx) (err error) { b, err = tx.GetBatch(h.ctx, id); return err })
	return b
}

// wantBatch fails unless batch id counted completed, failed (with ids
// failedIDs) and cancelled members.
func (h *harness) wantBatch(id ulid.ULID, completed, cancelled int, failedIDs ...ulid.ULID) {
	h.t.Helper()
	b := h.batch(id)
	if b.Completed != completed || b.Cancelled != cancelled || b.Failed != len(failedIDs) || !slices.Equal(b.FailedIDs, failedIDs) {
		h.t.Fatalf("batch %s is %+v, want %d completed, %d cancelled, failed %v", id, b, completed, cancelled, failedIDs)
	}
}

// wantSettled fails unless a leader settle pass changed exactly want.
func (h *harness) wantSettled(what string, want ...ulid.ULID) {
	h.t.Helper()
	if got := h.settle(); !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
		h.t.Fatalf("settle %s changed %v, want %v", what, got, want)
	}
}

var batchCases = []testCase{
	{"CallbackWaitsForEveryMember", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(3)
		h.wantWaiting(cb, store.Waiting)
		if j := h.job(m[0]); j.Batch != cb || h.job(cb).CallbackOf != cb {
			h.t.Fatalf("member's batch %s, callback's %s, want %s", j.Batch, h.job(cb).CallbackOf, cb)
		}
		h.wantTook(h.reserve(w, 10, "m", "cb"), "the members alone", m...)
		h.complete(w, m[0], m[2])
		h.wantSettled("with a member running")
		h.wantBatch(cb, 2, 0)
		h.wantWaiting(cb, store.Waiting)
		h.fail(w, m[1], "boom")
		h.wantSettled("after the last member failed for good", cb)
		h.wantWaiting(cb, store.Available)
		h.wantBatch(cb, 2, 0, m[1])
		if b := h.batch(cb); b.Members != 3 || b.Ended() != 3 {
			h.t.Fatalf("batch %+v, want 3 members all ended", b)
		}
		h.wantSettled("once the batch is released")
	}},
	{"RetriedMemberCountsOnce", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(2)
		h.reserve(w, 10, "m")
		h.do(func(tx store.Tx) error { // a failure and its retry commit together, as the worker records them
			if err := tx.FailJob(h.ctx, w, m[0], "boom"); err != nil {
				return err
			}
			_, err := tx.ScheduleRetry(h.ctx, m[0], h.newID(), 0)
			return err
		})
		next := h.job(m[0]).NextAttemptID
		h.complete(w, m[1])
		h.wantSettled("while the retry is to run")
		h.wantBatch(cb, 1, 0)
		if j := h.job(next); j.Batch != cb {
			h.t.Fatalf("the retry's batch is %s, want %s", j.Batch, cb)
		}
		h.wantTook(h.reserve(w, 10, "m"), "the retry", next)
		h.complete(w, next)
		h.wantSettled("after the retry completed", cb)
		h.wantBatch(cb, 2, 0)
	}},
	{"LostAndCancelledMembersEnd", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(3)
		h.wantTook(h.reserve(w, 1, "m"), "the first member", m[0])
		if _, err := h.cancel(m[1]); err != nil {
			h.t.Fatal(err)
		}
		h.wantSettled("with two members to end")
		h.wantBatch(cb, 0, 1)
		h.declareDead(w)
		h.wantSettled("with a member available")
		h.wantBatch(cb, 0, 1, m[0])
		if _, err := h.cancel(m[2]); err != nil {
			h.t.Fatal(err)
		}
		h.wantSettled("after the last was cancelled", cb)
		h.wantBatch(cb, 0, 2, m[0])
	}},
	{"SnoozedMemberHasNotEnded", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		h.reserve(w, 1, "m")
		next := h.snooze(w, m[0], 0)
		h.wantSettled("after a snooze")
		h.wantTook(h.reserve(w, 1, "m"), "the snoozed member", next.ID)
		h.complete(w, next.ID)
		h.wantSettled("after it completed", cb)
	}},
	{"ReleaseNotifiesTheCallbacksQueue", func(h *harness) {
		w := h.worker()
		m, _ := h.insertBatchOf(1)
		h.reserve(w, 1, "m")
		h.complete(w, m[0])
		ch := h.listen()
		h.settle()
		h.wantNotes(ch, available("cb"))
	}},
	{"RetryOfACountedMemberLeavesTheBatch", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		h.reserve(w, 1, "m")
		h.fail(w, m[0], "boom")
		h.wantSettled("after the member failed", cb)
		next := h.retry(m[0], 0)
		if next.Batch != (ulid.ULID{}) {
			h.t.Fatalf("an operator's retry of a counted member is in batch %s, want none", next.Batch)
		}
		h.wantTook(h.reserve(w, 1, "m"), "the retry", next.ID)
		h.complete(w, next.ID)
		h.wantSettled("after the retry completed")
		h.wantBatch(cb, 0, 0, m[0])
	}},
	{"RetentionKeepsAnUncountedMember", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		h.reserve(w, 1, "m")
		h.complete(w, m[0])
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 0 {
			h.t.Fatalf("retention deleted %d rows before the member was counted, want 0", n)
		}
		h.wantSettled("after retention", cb)
		h.wantTook(h.reserve(w, 1, "cb"), "the callback", cb)
		h.complete(w, cb)
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 2 {
			h.t.Fatalf("retention deleted %d rows, want the member and the callback", n)
		}
		err := h.tx(func(tx store.Tx) error { _, err := tx.GetBatch(h.ctx, cb); return err })
		h.wantErr(err, store.ErrNotFound, "the batch of a deleted callback")
	}},
	{"BatchStaysWhileItsCallbackHasARow", func(h *harness) {
		// A callback's retry reads the batch when it runs: deleting the
		// first attempt, by an operator or by retention, leaves the
		// batch; the callback's last row takes it along.
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		h.reserve(w, 1, "m")
		h.complete(w, m[0])
		h.wantSettled("after the member completed", cb)
		h.wantTook(h.reserve(w, 1, "cb"), "the callback", cb)
		h.fail(w, cb, "boom")
		next := h.retry(cb, 0)
		if _, err := h.deleteJob(cb); err != nil {
			h.t.Fatalf("delete of the callback's failed first attempt: %v", err)
		}
		h.wantBatch(cb, 1, 0)
		h.wantTook(h.reserve(w, 1, "cb"), "the callback's retry", next.ID)
		h.fail(w, next.ID, "boom again")
		last := h.retry(next.ID, 0)
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 2 {
			h.t.Fatalf("retention deleted %d rows, want the member and the callback's second attempt", n)
		}
		h.wantBatch(cb, 1, 0)
		h.wantTook(h.reserve(w, 1, "cb"), "the callback's last retry", last.ID)
		h.complete(w, last.ID)
		if _, err := h.deleteJob(last.ID); err != nil {
			h.t.Fatalf("delete of the callback's last row: %v", err)
		}
		err := h.tx(func(tx store.Tx) error { _, err := tx.GetBatch(h.ctx, cb); return err })
		h.wantErr(err, store.ErrNotFound, "the batch of a callback with no row left")
	}},
	{"MemberCancelledForItsParentCountsInTheSamePass", func(h *harness) {
		w := h.worker()
		parent := h.running(w, "q")
		cb, member := h.newID(), h.newID()
		h.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: member, Queue: "m", Payload: payload(1), Batch: cb, Parents: []ulid.ULID{parent}},
				{ID: cb, Queue: "cb", Payload: payload(2), Callback: true}})
			return err
		})
		h.fail(w, parent, "boom")
		h.wantSettled("after the member's parent failed for good", cb, member) // in id order
		h.wantCancelledBy(member, parent, store.Failed)
		h.wantBatch(cb, 0, 1)
		h.wantWaiting(cb, store.Available)
	}},
	{"CancelledCallbackIsNotReleased", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		if _, err := h.cancel(cb); err != nil {
			h.t.Fatal(err)
		}
		h.reserve(w, 1, "m")
		h.complete(w, m[0])
		h.wantSettled("with its callback cancelled")
		h.wantBatch(cb, 1, 0)
		h.wantWaiting(cb, store.Cancelled)
	}},
	{"BadBatchesAreRefused", func(h *harness) {
		cb, member := h.newID(), h.newID()
		for _, c := range []struct {
			what string
			jobs []store.NewJob
			name string
		}{
			{"a member of no callback", []store.NewJob{{ID: member, Queue: "m", Payload: payload(1), Batch: cb}}, cb.String()},
			{"a callback without members", []store.NewJob{{ID: cb, Queue: "cb", Payload: payload(1), Callback: true}}, cb.String()},
			{"a unique member", []store.NewJob{{ID: member, Queue: "m", Payload: payload(1), Batch: cb, UniqueKey: "k"},
				{ID: cb, Queue: "cb", Payload: payload(1), Callback: true}}, `"k"`},
			{"a callback with parents", []store.NewJob{{ID: member, Queue: "m", Payload: payload(1), Batch: cb},
				{ID: cb, Queue: "cb", Payload: payload(1), Callback: true, Parents: []ulid.ULID{member}}}, "parents"},
			{"a callback in a batch", []store.NewJob{{ID: member, Queue: "m", Payload: payload(1), Batch: cb, Callback: true}}, cb.String()},
		} {
			err := h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, c.jobs); return err })
			h.wantErr(err, store.ErrInvalid, c.what)
			if !strings.Contains(err.Error(), c.name) {
				h.t.Fatalf("%s: error %q does not name %s", c.what, err, c.name)
			}
		}
		h.wantJobCount(0)
		err := h.tx(func(tx store.Tx) error { _, err := tx.GetBatch(h.ctx, cb); return err })
		h.wantErr(err, store.ErrNotFound, "an unknown batch")
	}},
}
