package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertChild inserts a job of queue "c" that waits for parents.
func (h *harness) insertChild(anyway bool, parents ...ulid.ULID) ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "c", Payload: payload(1), Parents: parents, RunAnyway: anyway}})
		return err
	})
	return id
}

// settle runs SettleWaitingJobs and returns the ids it changed.
func (h *harness) settle() []ulid.ULID {
	h.t.Helper()
	var got []store.Job
	h.do(func(tx store.Tx) (err error) { got, err = tx.SettleWaitingJobs(h.ctx); return err })
	return ids(got)
}

// wantWaiting fails unless job id waits for exactly parents (none: it
// is in status want).
func (h *harness) wantWaiting(id ulid.ULID, want store.Status, parents ...ulid.ULID) store.Job {
	h.t.Helper()
	j := h.job(id)
	if j.Status != want || !slices.Equal(j.Parents, parents) {
		h.t.Fatalf("job %s is %s waiting for %v, want %s waiting for %v", id, j.Status, j.Parents, want, parents)
	}
	return j
}

// wantCancelledBy fails unless job id was cancelled at now naming parent.
func (h *harness) wantCancelledBy(id, parent ulid.ULID, how store.Status) {
	h.t.Helper()
	j := h.wantWaiting(id, store.Cancelled)
	if want := "parent " + parent.String() + " " + string(how); j.FailedReason != want || !j.CancelledAt.Equal(h.now()) {
		h.t.Fatalf("job %s cancelled at %v with reason %q, want %v and %q", id, j.CancelledAt, j.FailedReason, h.now(), want)
	}
}

var dependencyCases = []testCase{
	{"WaitsUntilEveryParentCompleted", func(h *harness) {
		w := h.worker()
		p1, p2 := h.running(w, "q"), h.running(w, "q")
		c := h.insertChild(false, p2, p1)
		h.wantWaiting(c, store.Waiting, p2, p1)
		h.wantTook(h.reserve(w, 10, "c"), "while both parents run", []ulid.ULID{}...)
		h.complete(w, p1)
		h.wantWaiting(c, store.Waiting, p2)
		h.wantTook(h.reserve(w, 10, "c"), "while one parent runs", []ulid.ULID{}...)
		h.complete(w, p2)
		h.wantWaiting(c, store.Available)
		h.wantTook(h.reserve(w, 10, "c"), "once both completed", c)
	}},
	{"OneCompletionReleasesEveryChild", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		a, b := h.insertChild(false, p), h.insertChild(true, p)
		h.complete(w, p)
		h.wantWaiting(a, store.Available)
		h.wantWaiting(b, store.Available)
		if got := h.settle(); len(got) != 0 {
			h.t.Fatalf("settle after the completion changed %v, want nothing", got)
		}
	}},
	{"OneCompletionOfParentsAndOthers", func(h *harness) {
		// A completion of jobs nobody waits for releases nothing; one
		// that also completes parents drops all of them at once, from
		// every child, and leaves a child of another parent waiting.
		w := h.worker()
		x, y := h.running(w, "q"), h.running(w, "q")
		p1, p2, p3 := h.running(w, "q"), h.running(w, "q"), h.running(w, "q")
		c1, c2, c3 := h.insertChild(false, p1), h.insertChild(false, p2, p1), h.insertChild(false, p3, p2)
		h.complete(w, x)
		h.wantWaiting(c1, store.Waiting, p1)
		h.complete(w, y, p1, p2)
		h.wantWaiting(c1, store.Available)
		h.wantWaiting(c2, store.Available)
		h.wantWaiting(c3, store.Waiting, p3)
		h.wantTook(h.reserve(w, 10, "c"), "after the one completion", c1, c2)
	}},
	{"ReleaseNotifiesItsQueue", func(h *harness) {
		w := h.worker()
		p1, p2 := h.running(w, "q"), h.running(w, "q")
		h.insertChild(false, p1)
		h.insertChild(true, p2)
		ch := h.listen()
		h.complete(w, p1)
		h.wantNotes(ch, available("c"))
		if _, err := h.cancel(p2); err != nil {
			h.t.Fatal(err)
		}
		h.wantNotes(ch, store.Notification{Channel: store.ChannelCancel, Job: p2}, available("c"))
	}},
	{"ReleasedLaterIsScheduled", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		id := h.newID()
		h.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "c", Payload: payload(1), Parents: []ulid.ULID{p},
				ScheduledAt: h.now().Add(time.Hour)}})
			return err
		})
		h.complete(w, p)
		h.wantWaiting(id, store.Scheduled)
	}},
	{"FailedForGoodCancelsAtSettle", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		h.fail(w, p, "boom")
		h.wantWaiting(c, store.Waiting, p)
		h.clock.Advance(time.Second)
		if got := h.settle(); !slices.Equal(got, []ulid.ULID{c}) {
			h.t.Fatalf("settle changed %v, want %v", got, c)
		}
		h.wantCancelledBy(c, p, store.Failed)
	}},
	{"LostForGoodCancelsAtSettle", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		h.declareDead(w)
		h.settle()
		h.wantCancelledBy(c, p, store.Lost)
	}},
	{"RetryTakesItsParentsPlace", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		h.fail(w, p, "boom")
		next := h.retry(p, 0)
		h.wantWaiting(c, store.Waiting, next.ID)
		if got := h.settle(); len(got) != 0 {
			h.t.Fatalf("settle after a retry changed %v, want nothing", got)
		}
		h.wantTook(h.reserve(w, 1, "q"), "the retry", next.ID)
		h.complete(w, next.ID)
		h.wantWaiting(c, store.Available)
	}},
	{"SnoozeTakesItsParentsPlace", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		next := h.snooze(w, p, time.Hour)
		h.wantWaiting(c, store.Waiting, next.ID)
	}},
	{"CancelCancelsTheChainAtOnce", func(h *harness) {
		a := h.insert("q", time.Time{})
		b := h.insertChild(false, a)
		c := h.insertChild(false, b)
		free := h.insertChild(true, b)
		h.clock.Advance(time.Second)
		if _, err := h.cancel(a); err != nil {
			h.t.Fatal(err)
		}
		h.wantCancelledBy(b, a, store.Cancelled)
		h.wantCancelledBy(c, b, store.Cancelled)
		h.wantWaiting(free, store.Available)
	}},
	{"RunsAnywayAfterTheOthersEnded", func(h *harness) {
		w := h.worker()
		p1, p2 := h.running(w, "q"), h.running(w, "q")
		c := h.insertChild(true, p1, p2)
		h.fail(w, p1, "boom")
		h.settle()
		h.wantWaiting(c, store.Waiting, p2)
		h.complete(w, p2)
		h.wantWaiting(c, store.Available)
	}},
	{"CancelOfAWaitingJob", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		got, err := h.cancel(c)
		if err != nil || got.Status != store.Cancelled || got.Parents != nil || got.FailedReason != "" {
			h.t.Fatalf("cancel of a waiting job: %+v, %v", got, err)
		}
		h.complete(w, p)
		h.wantWaiting(c, store.Cancelled)
	}},
	{"InsertAfterEndedParents", func(h *harness) {
		completed, failed, cancelled, _ := h.terminalJobs()
		h.wantWaiting(h.insertChild(false, completed), store.Available)
		h.wantCancelledBy(h.insertChild(false, completed, failed), failed, store.Failed)
		h.wantCancelledBy(h.insertChild(false, cancelled), cancelled, store.Cancelled)
		h.wantWaiting(h.insertChild(true, failed, cancelled), store.Available)
		next := h.retry(failed, time.Hour)
		h.wantWaiting(h.insertChild(false, failed, next.ID), store.Waiting, next.ID)
	}},
	{"UnknownParentIsRefused", func(h *harness) {
		known := h.insert("q", time.Time{})
		unknown, id := h.newID(), h.newID()
		err := h.tx(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "c", Payload: payload(1), Parents: []ulid.ULID{known, unknown}}})
			return err
		})
		h.wantErr(err, store.ErrInvalid, "a parent that does not exist")
		if !strings.Contains(err.Error(), unknown.String()) {
			h.t.Fatalf("error %q does not name the unknown parent %s", err, unknown)
		}
		h.wantJobCount(1)
	}},
	{"ParentsWithinTheBatch", func(h *harness) {
		held := h.keyed("k")
		h.insertUnique(held)
		a, b, c, d := h.newID(), h.newID(), h.newID(), h.newID()
		dup := h.keyed("k")
		dup.ID = d
		var dups []store.Duplicate
		h.do(func(tx store.Tx) (err error) {
			dups, err = tx.InsertJobs(h.ctx, []store.NewJob{
				{ID: a, Queue: "q", Payload: payload(1)},
				{ID: b, Queue: "c", Payload: payload(2), Parents: []ulid.ULID{a}},
				dup,
				{ID: c, Queue: "c", Payload: payload(3), Parents: []ulid.ULID{b, d}},
			})
			return err
		})
		if len(dups) != 1 {
			h.t.Fatalf("duplicates %+v, want the keyed job", dups)
		}
		h.wantWaiting(b, store.Waiting, a)
		h.wantWaiting(c, store.Waiting, b, dups[0].Existing.ID)
		later := h.newID()
		err := h.tx(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{
				{ID: h.newID(), Queue: "c", Payload: payload(1), Parents: []ulid.ULID{later}},
				{ID: later, Queue: "q", Payload: payload(1)},
			})
			return err
		})
		h.wantErr(err, store.ErrInvalid, "a parent later in the batch")
	}},
	{"RetentionKeepsAWaitedParent", func(h *harness) {
		w := h.worker()
		p := h.running(w, "q")
		c := h.insertChild(false, p)
		h.fail(w, p, "boom")
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 0 {
			h.t.Fatalf("retention deleted %d rows while a job waits for the failed one, want 0", n)
		}
		h.settle()
		h.wantCancelledBy(c, p, store.Failed)
		h.clock.Advance(time.Hour)
		if n := h.deleteOldJobs(time.Minute); n != 2 {
			h.t.Fatalf("retention deleted %d rows once settled, want 2", n)
		}
	}},
}
