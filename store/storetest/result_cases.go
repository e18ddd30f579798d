package storetest

import (
	"context"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// complete runs CompleteJobs and returns the fenced ids.
func (h *harness) complete(w ulid.ULID, jobs ...ulid.ULID) []ulid.ULID {
	h.t.Helper()
	var fenced []ulid.ULID
	h.do(func(tx store.Tx) (err error) {
		fenced, err = tx.CompleteJobs(h.ctx, store.Completion{Worker: w, IDs: jobs})
		return err
	})
	return fenced
}

// declareDead shuts w down and rescues its jobs, as the leader does.
func (h *harness) declareDead(w ulid.ULID) []store.Job {
	h.t.Helper()
	var lost []store.Job
	h.do(func(tx store.Tx) (err error) { lost, err = shutdownAndRescue(h.ctx, tx, w); return err })
	return lost
}

// shutdownAndRescue shuts w down and rescues the running jobs of every
// shut-down worker, in tx: the leader's pass over a worker it found dead.
func shutdownAndRescue(ctx context.Context, tx store.Tx, w ulid.ULID) ([]store.Job, error) {
	if err := tx.ShutdownWorker(ctx, w); err != nil {
		return nil, err
	}
	return tx.RescueLostJobs(ctx)
}

var resultCases = []testCase{
	{"Complete", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		started := h.job(id)
		h.clock.Advance(time.Second)
		if fenced := h.complete(w, id); len(fenced) != 0 {
			h.t.Fatalf("fenced %v", fenced)
		}
		want := started
		want.Status, want.CompletedAt = store.Completed, h.now()
		h.wantJob(id, want)
	}},
	{"CompleteFencesOthersInOrderGiven", func(h *harness) {
		w, other := h.worker(), h.worker()
		mine := h.running(w, "q")
		theirs := h.running(other, "q")
		cancelled := h.running(w, "q")
		h.do(func(tx store.Tx) error { _, err := tx.CancelJob(h.ctx, cancelled); return err })
		avail := h.insert("q", time.Time{})
		unknown := h.newID()
		before := map[ulid.ULID]string{}
		for _, id := range []ulid.ULID{theirs, avail, cancelled} {
			before[id] = store.FormatJob(h.job(id))
		}
		fenced := h.complete(w, unknown, theirs, mine, cancelled, avail)
		if want := []ulid.ULID{unknown, theirs, cancelled, avail}; !slices.Equal(fenced, want) {
			h.t.Fatalf("fenced %v, want %v", fenced, want)
		}
		if h.job(mine).Status != store.Completed {
			h.t.Fatalf("my job: %s", store.FormatJob(h.job(mine)))
		}
		for id, row := range before {
			if got := store.FormatJob(h.job(id)); got != row {
				h.t.Errorf("fenced row changed:\n got  %s\n want %s", got, row)
			}
		}
	}},
	{"CompleteSameIDTwice", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		if fenced := h.complete(w, id, id); len(fenced) != 0 {
			h.t.Fatalf("fenced %v for an id given twice, want none", fenced)
		}
		if fenced := h.complete(w, id); !slices.Equal(fenced, []ulid.ULID{id}) {
			h.t.Fatalf("completing again fenced %v, want [%s]", fenced, id)
		}
	}},
	{"Fail", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		started := h.job(id)
		h.clock.Advance(time.Second)
		h.fail(w, id, "handler said no")
		want := started
		want.Status, want.FailedAt, want.FailedReason = store.Failed, h.now(), "handler said no"
		h.wantJob(id, want)
	}},
	{"FailReasonThatTextCannotHold", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		h.fail(w, id, "nul\x00 and \xff\xfe bytes")
		if got, want := h.job(id).FailedReason, "nul\uFFFD and \uFFFD bytes"; got != want {
			h.t.Fatalf("failed_reason = %q, want %q", got, want)
		}
	}},
	{"FailFenced", func(h *harness) {
		w, other := h.worker(), h.worker()
		theirs := h.running(other, "q")
		cancelled := h.running(w, "q")
		h.do(func(tx store.Tx) error { _, err := tx.CancelJob(h.ctx, cancelled); return err })
		done := h.running(w, "q")
		h.complete(w, done)
		avail := h.insert("q", time.Time{})
		before := h.state()
		for _, id := range []ulid.ULID{theirs, cancelled, done, avail, h.newID()} {
			err := h.tx(func(tx store.Tx) error { return tx.FailJob(h.ctx, w, id, "late") })
			h.wantErr(err, store.ErrFenced, "FailJob of "+id.String())
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("fenced FailJob changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	}},
	{"FencedAfterRescue", func(h *harness) {
		w, next := h.worker(), h.worker()
		id := h.running(w, "q")
		lost := h.declareDead(w)
		if len(lost) != 1 || lost[0].ID != id {
			h.t.Fatalf("rescued %v, want [%s]", ids(lost), id)
		}
		before := h.state()
		if fenced := h.complete(w, id); !slices.Equal(fenced, []ulid.ULID{id}) {
			h.t.Fatalf("complete after rescue fenced %v", fenced)
		}
		err := h.tx(func(tx store.Tx) error { return tx.FailJob(h.ctx, w, id, "late") })
		h.wantErr(err, store.ErrFenced, "FailJob after rescue")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("fenced results changed the store:\n%s", after)
		}
		// The retry runs elsewhere; the dead worker's result still cannot land.
		h.do(func(tx store.Tx) error { _, err := tx.ScheduleRetry(h.ctx, id, h.newID(), 0); return err })
		retry := h.reserve(next, 1, "q")
		if len(retry) != 1 || retry[0].Attempt != 1 {
			h.t.Fatalf("retry of the lost job: %v", retry)
		}
		if fenced := h.complete(w, retry[0].ID); len(fenced) != 1 {
			h.t.Fatal("dead worker completed the retry running on another worker")
		}
	}},
}
