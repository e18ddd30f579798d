package storetest

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// deleteJob runs DeleteJob.
func (h *harness) deleteJob(id ulid.ULID) (store.Job, error) {
	var j store.Job
	err := h.tx(func(tx store.Tx) (err error) { j, err = tx.DeleteJob(h.ctx, id); return err })
	return j, err
}

// wantDeleteRefused fails unless deleting id is refused with want and
// changes nothing.
func (h *harness) wantDeleteRefused(id ulid.ULID, want error, what string) {
	h.t.Helper()
	before := h.state()
	_, err := h.deleteJob(id)
	h.wantErr(err, want, what)
	if after := h.state(); after.String() != before.String() {
		h.t.Fatalf("a refused delete (%s) changed the store:\n%s", what, after)
	}
}

var deleteCases = []testCase{
	{"EndedRowsGoAtAnyAge", func(h *harness) {
		done, failed, cancelled, lost := h.terminalJobs()
		for _, id := range []ulid.ULID{done, failed, cancelled, lost} {
			want := h.job(id)
			got, err := h.deleteJob(id)
			if err != nil {
				h.t.Fatalf("delete %s job: %v", want.Status, err)
			}
			if store.FormatJob(got) != store.FormatJob(want) {
				h.t.Fatalf("delete returned\n %s\nwant the row\n %s", store.FormatJob(got), store.FormatJob(want))
			}
		}
		if left := h.state().Jobs; len(left) != 0 {
			h.t.Fatalf("rows left after deleting every ended one: %v", ids(left))
		}
	}},
	{"UnendedOrUnknownRefused", func(h *harness) {
		w := h.worker()
		run := h.running(w, "q")
		for _, id := range []ulid.ULID{h.insert("q", time.Time{}), h.insert("q", h.clock.Now().Add(time.Hour)), run} {
			h.wantDeleteRefused(id, store.ErrConflict, fmt.Sprintf("delete of a %s job", h.job(id).Status))
		}
		h.wantDeleteRefused(h.newID(), store.ErrNotFound, "delete of an unknown job")
		if got := h.complete(w, run); len(got) != 0 {
			h.t.Fatalf("the running job's worker could not complete it after a refused delete: fenced %v", got)
		}
	}},
	{"ChainFromItsFirstAttempt", func(h *harness) {
		w := h.worker()
		first := h.failNext(w, "q")
		next := h.retry(first, 0)
		h.wantDeleteRefused(next.ID, store.ErrConflict, "delete of the available retry")
		h.wantTook(h.reserve(w, 1, "q"), "the retry", next.ID)
		h.fail(w, next.ID, "again")
		// The second attempt ended, but the first names it: deleting it
		// would make the first look failed for good.
		h.wantDeleteRefused(next.ID, store.ErrConflict, "delete of an attempt an earlier one links to")
		if _, err := h.deleteJob(first); err != nil {
			h.t.Fatal(err)
		}
		if _, err := h.deleteJob(next.ID); err != nil {
			h.t.Fatalf("delete of the last attempt once the first went: %v", err)
		}
	}},
	{"KeptAsRetentionKeeps", func(h *harness) {
		w := h.worker()
		// A row that halts its sequence stays until skipped.
		seq := h.insertSequenced("q", false, "k", "k")
		h.failForGood(w, seq[0])
		h.wantDeleteRefused(seq[0], store.ErrConflict, "delete of a row that halts its sequence")
		h.skip(seq[0])
		if _, err := h.deleteJob(seq[0]); err != nil {
			h.t.Fatalf("delete of a skipped row: %v", err)
		}
		// A parent that failed for good stays until the leader settled
		// the job that waits for it (a completion releases its children
		// itself).
		parent := h.running(w, "p")
		child := h.insertChild(false, parent)
		h.fail(w, parent, "for good")
		h.wantDeleteRefused(parent, store.ErrConflict, "delete of a parent a waiting job waits for")
		h.settle()
		if _, err := h.deleteJob(parent); err != nil {
			h.t.Fatalf("delete of a settled parent: %v", err)
		}
		h.wantCancelledBy(child, parent, store.Failed)
	}},
	{"BatchMemberAfterItsCountCallbackWithItsBatch", func(h *harness) {
		w := h.worker()
		m, cb := h.insertBatchOf(1)
		h.wantTook(h.reserve(w, 1, "m"), "the member", m[0])
		h.complete(w, m[0])
		h.wantDeleteRefused(m[0], store.ErrConflict, "delete of a member its batch has not counted")
		h.settle()
		if _, err := h.deleteJob(m[0]); err != nil {
			h.t.Fatalf("delete of a counted member: %v", err)
		}
		h.wantBatch(cb, 1, 0)
		h.wantTook(h.reserve(w, 1, "cb"), "the callback", cb)
		h.complete(w, cb)
		if _, err := h.deleteJob(cb); err != nil {
			h.t.Fatalf("delete of the ended callback: %v", err)
		}
		var err error
		h.do(func(tx store.Tx) error { _, err = tx.GetBatch(h.ctx, cb); return nil })
		h.wantErr(err, store.ErrNotFound, "the batch of a deleted callback")
	}},
}
