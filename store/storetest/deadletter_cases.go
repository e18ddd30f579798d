package storetest

import (
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func (h *harness) setDeadLetter(q, dead string) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.SetQueueDeadLetter(h.ctx, q, dead) })
}

// deadLetter runs DeadLetterJob on id.
func (h *harness) deadLetter(id ulid.ULID) (store.Job, error) {
	h.t.Helper()
	var j store.Job
	err := h.tx(func(tx store.Tx) (err error) { j, err = tx.DeadLetterJob(h.ctx, id); return err })
	return j, err
}

var deadLetterCases = []testCase{
	{"FailedForGoodMovesToTheDeadLetterQueue", func(h *harness) {
		h.setDeadLetter("q", "q.dead")
		w := h.worker()
		id := h.failNext(w, "q")
		before := h.job(id)
		got, err := h.deadLetter(id)
		if err != nil {
			h.t.Fatal(err)
		}
		want := before
		want.Queue, want.DeadFrom = "q.dead", "q"
		if store.FormatJob(got) != store.FormatJob(want) {
			h.t.Fatalf("dead-lettered row:\n got  %s\n want %s", store.FormatJob(got), store.FormatJob(want))
		}
		h.wantJob(id, want)
		if n := len(h.list(store.JobFilter{Queue: "q"})); n != 0 {
			h.t.Fatalf("queue q still lists %d rows after the dead letter", n)
		}
		again, err := h.deadLetter(id) // already dead: unchanged
		if err != nil || store.FormatJob(again) != store.FormatJob(want) {
			h.t.Fatalf("second dead letter: %v %s", err, store.FormatJob(again))
		}
	}},
	{"NoDeadLetterQueueKeepsTheRowInPlace", func(h *harness) {
		w := h.worker()
		id := h.failNext(w, "q")
		before := h.job(id)
		got, err := h.deadLetter(id)
		if err != nil || store.FormatJob(got) != store.FormatJob(before) {
			h.t.Fatalf("dead letter without a dead-letter queue: %v %s", err, store.FormatJob(got))
		}
		h.setDeadLetter("q", "q.dead")
		h.setDeadLetter("q", "") // cleared: the queue's row goes
		if _, err := h.deadLetter(id); err != nil || h.job(id).Queue != "q" {
			h.t.Fatalf("dead letter after a clear: %v %s", err, store.FormatJob(h.job(id)))
		}
		if qs := h.state().Queues; len(qs) != 0 {
			h.t.Fatalf("queues rows after the clear: %+v", qs)
		}
	}},
	{"OnlyAJobThatFailedForGoodMoves", func(h *harness) {
		h.setDeadLetter("q", "q.dead")
		w := h.worker()
		running := h.running(w, "q")
		_, err := h.deadLetter(running)
		h.wantErr(err, store.ErrConflict, "dead letter of a running job")
		failed := h.failNext(w, "q")
		h.retry(failed, 0)
		_, err = h.deadLetter(failed)
		h.wantErr(err, store.ErrConflict, "dead letter of a job with a next attempt")
		_, err = h.deadLetter(h.newID())
		h.wantErr(err, store.ErrNotFound, "dead letter of an unknown job")
	}},
	{"EachEndMovesOnlyIfFailedForGood", func(h *harness) {
		h.setDeadLetter("q", "q.dead")
		completed, failed, cancelled, lost := h.terminalJobs()
		h.do(func(tx store.Tx) error { _, err := tx.RescueLostJobs(h.ctx); return err })
		for _, id := range []ulid.ULID{completed, cancelled} {
			_, err := h.deadLetter(id)
			h.wantErr(err, store.ErrConflict, "dead letter of a "+string(h.job(id).Status)+" job")
		}
		for _, id := range []ulid.ULID{failed, lost} {
			got, err := h.deadLetter(id)
			if err != nil || got.Queue != "q.dead" || got.DeadFrom != "q" || got.Status != h.job(id).Status {
				h.t.Fatalf("dead letter of a %s job: %v %s", h.job(id).Status, err, store.FormatJob(got))
			}
		}
	}},
	{"RedriveSendsTheNextAttemptBack", func(h *harness) {
		h.setDeadLetter("q", "q.dead")
		w := h.worker()
		id := h.failNext(w, "q")
		if _, err := h.deadLetter(id); err != nil {
			h.t.Fatal(err)
		}
		next := h.retry(id, 0)
		if next.Queue != "q" || next.DeadFrom != "" || next.Attempt != 1 || next.Status != store.Available {
			h.t.Fatalf("redriven attempt: %s", store.FormatJob(next))
		}
		if old := h.job(id); old.NextAttemptID != next.ID || old.Queue != "q.dead" || old.DeadFrom != "q" {
			h.t.Fatalf("dead row after the redrive: %s", store.FormatJob(old))
		}
		if r := h.reserve(w, 1, "q"); len(r) != 1 || r[0].ID != next.ID {
			h.t.Fatalf("reserve after the redrive = %v, want [%s]", ids(r), next.ID)
		}
		h.fail(w, next.ID, "again")
		if got, err := h.deadLetter(next.ID); err != nil || got.Queue != "q.dead" || got.DeadFrom != "q" {
			h.t.Fatalf("the redriven attempt failing for good again: %v %s", err, store.FormatJob(got))
		}
	}},
	{"BadDeadLetterQueues", func(h *harness) {
		for _, c := range []struct{ q, dead, what string }{
			{"q", "q", "a queue dead-lettering to itself"},
			{"", "q.dead", "a queue without a name"},
			{"q", "bad\x00name", "a dead-letter queue name with a NUL"},
		} {
			err := h.tx(func(tx store.Tx) error { return tx.SetQueueDeadLetter(h.ctx, c.q, c.dead) })
			h.wantErr(err, store.ErrInvalid, c.what)
		}
		if qs := h.state().Queues; len(qs) != 0 {
			h.t.Fatalf("queues rows after refused dead letters: %+v", qs)
		}
	}},
	{"DeadLetterSettingIsListed", func(h *harness) {
		h.setDeadLetter("q", "q.dead")
		h.pause("q")
		var stats []store.QueueStats
		h.do(func(tx store.Tx) (err error) { stats, err = tx.ListQueues(h.ctx); return err })
		if len(stats) != 1 || stats[0].DeadLetter != "q.dead" || stats[0].PausedAt.IsZero() {
			h.t.Fatalf("ListQueues = %+v", stats)
		}
		h.resume("q")
		if qs := h.state().Queues; len(qs) != 1 || qs[0].DeadLetter != "q.dead" {
			h.t.Fatalf("queues rows after the resume: %+v", qs)
		}
	}},
}
