package storetest

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// setHistory sets queue q's history setting.
func (h *harness) setHistory(q string, keep bool) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.SetQueueHistory(h.ctx, q, keep) })
}

// wantGone fails the test unless row id is no longer in the store.
func (h *harness) wantGone(id ulid.ULID, what string) {
	h.t.Helper()
	err := h.tx(func(tx store.Tx) error { _, err := tx.GetJob(h.ctx, id); return err })
	if !errors.Is(err, store.ErrNotFound) {
		h.t.Fatalf("%s: job %s is still there (%v): %s", what, id, err, store.FormatJob(h.job(id)))
	}
}

// wantCompleted fails the test unless row id is kept, completed.
func (h *harness) wantCompleted(id ulid.ULID, what string) {
	h.t.Helper()
	if j := h.job(id); j.Status != store.Completed {
		h.t.Fatalf("%s: job %s is %s, want completed and kept", what, id, j.Status)
	}
}

// completeOne reserves the only available job of queue q with a new
// worker, wanting id, and completes it unfenced.
func (h *harness) completeOne(q string, id ulid.ULID) {
	h.t.Helper()
	w := h.worker()
	if got := h.reserve(w, 1, q); len(got) != 1 || got[0].ID != id {
		h.t.Fatalf("reserve of %s on %s returned %v", id, q, ids(got))
	}
	if fenced := h.complete(w, id); len(fenced) != 0 {
		h.t.Fatalf("completion of %s fenced %v", id, fenced)
	}
}

var historyCases = []testCase{
	{"CompletionOnAHistorylessQueueDeletesTheRow", func(h *harness) {
		h.setHistory("q", false)
		w := h.worker()
		gone, kept := h.running(w, "q"), h.running(w, "k")
		if fenced := h.complete(w, gone, kept, gone); len(fenced) != 0 {
			h.t.Fatalf("completion fenced %v", fenced)
		}
		h.wantGone(gone, "completed on a queue without history")
		h.wantCompleted(kept, "completed on a queue that keeps history")
		if fenced := h.complete(w, gone); len(fenced) != 1 || fenced[0] != gone {
			h.t.Fatalf("completing the deleted row again fenced %v, want it", fenced)
		}
		qs := h.queues()
		if len(qs) != 2 || qs[1].Name != "q" || !qs[1].NoHistory || qs[1].History() != store.HistoryNone || len(qs[1].Counts) != 0 {
			h.t.Fatalf("ListQueues: %+v", qs)
		}
		if qs[0].Name != "k" || qs[0].NoHistory || qs[0].Counts[store.Completed] != 1 {
			h.t.Fatalf("ListQueues of the queue that keeps history: %+v", qs[0])
		}
	}},
	{"AJobPassDeletesAsCompleteJobsDoes", func(h *harness) {
		h.setHistory("q", false)
		h.setLimit("q", 5) // store/pg: the completion that records what it ended
		w := h.worker()
		gone, kept := h.running(w, "q"), h.running(w, "k")
		res := h.pass(store.JobPass{Worker: w, Heartbeat: true, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{gone, kept}}}, Queues: []string{"q"}, Limit: 1})
		if len(res.Fenced) != 0 || res.Dead {
			h.t.Fatalf("job pass: %s", FormatPass(res))
		}
		h.wantGone(gone, "completed by a job pass on a queue without history")
		h.wantCompleted(kept, "completed by a job pass on a queue that keeps history")
	}},
	{"AJobPassOfNoLimitDeletesToo", func(h *harness) {
		// store/pg: the completion sent first leaves out the deleting
		// part, refuses on seeing q, and the pass is sent again whole.
		h.setHistory("q", false)
		w := h.worker()
		gone, kept := h.running(w, "q"), h.running(w, "k")
		outputs := []json.RawMessage{nil, json.RawMessage(`{"sent":1}`)}
		res := h.pass(store.JobPass{Worker: w, Heartbeat: true, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{gone, kept}, Outputs: outputs}}, Queues: []string{"q"}, Limit: 1})
		if len(res.Fenced) != 0 || res.Dead {
			h.t.Fatalf("job pass: %s", FormatPass(res))
		}
		h.wantGone(gone, "completed by a job pass of no limit on a queue without history")
		h.wantCompleted(kept, "completed by a job pass of no limit on a queue that keeps history")
	}},
	{"OutputGoesWithTheDeletedRow", func(h *harness) {
		h.setHistory("q", false)
		w := h.worker()
		id := h.running(w, "q")
		if fenced, err := h.completeWith(w, []ulid.ULID{id}, json.RawMessage(`{"sent":1}`)); err != nil || len(fenced) != 0 {
			h.t.Fatalf("completion with output: %v, fenced %v", err, fenced)
		}
		h.wantGone(id, "completed with an output on a queue without history")
	}},
	{"AnAwaitedRowIsKept", func(h *harness) {
		h.setHistory("q", false)
		parent := h.insert("q", time.Time{})
		child := h.insertChild(false, parent)
		h.completeOne("q", parent)
		h.wantCompleted(parent, "a parent a waiting job waits for")
		if j := h.job(child); j.Status != store.Available {
			h.t.Fatalf("child after its parent completed: %s", store.FormatJob(j))
		}
	}},
	{"ARowAChildWaitedForIsKeptUntilSettled", func(h *harness) {
		// A child that stopped waiting leaves its parent marked awaited
		// until the leader settles it (store/pg: jobs.awaited): the
		// completion keeps the row, as on a store where a child's insert
		// may be in flight.
		h.setHistory("q", false)
		parent := h.insert("q", time.Time{})
		child := h.insertChild(false, parent)
		if _, err := h.cancel(child); err != nil {
			h.t.Fatal(err)
		}
		h.completeOne("q", parent)
		h.wantCompleted(parent, "a parent whose child was cancelled")
	}},
	{"AnUncountedBatchMemberIsKept", func(h *harness) {
		h.setHistory("m", false)
		members, cb := h.insertBatchOf(1)
		h.completeOne("m", members[0])
		h.wantCompleted(members[0], "a batch member its batch has not counted")
		h.settle()
		if j := h.job(cb); j.Status != store.Available {
			h.t.Fatalf("callback after its only member completed: %s", store.FormatJob(j))
		}
	}},
	{"AUniqueKeyHeldWhileCompletedIsKept", func(h *harness) {
		h.setHistory("q", false)
		held := h.keyed("held")
		held.UniqueStates = store.LiveStatuses | store.StatusesOf(store.Completed)
		free := h.keyed("free")
		h.insertUnique(held)
		h.completeOne("q", held.ID)
		h.wantCompleted(held.ID, "a row whose unique key holds while completed")
		h.insertUnique(free)
		h.completeOne("q", free.ID)
		h.wantGone(free.ID, "a row whose unique key is freed at completion")
		again := h.keyed("held")
		again.UniqueStates = held.UniqueStates
		if dups := h.insertUnique(again); len(dups) != 1 {
			h.t.Fatalf("the key held while completed was freed: duplicates %v", dups)
		}
	}},
	{"ARetryOfAnEarlierAttemptIsKept", func(h *harness) {
		h.setHistory("q", false)
		first := h.failNext(h.worker(), "q")
		next := h.retry(first, 0)
		h.completeOne("q", next.ID)
		h.wantCompleted(next.ID, "a retry an earlier attempt names")
		if j := h.job(first); j.NextAttemptID != next.ID {
			h.t.Fatalf("earlier attempt after the retry completed: %s", store.FormatJob(j))
		}
	}},
	{"ARunItsScheduleNamesIsKept", func(h *harness) {
		h.setHistory("q", false)
		named, unnamed := h.insert("q", time.Time{}), h.insert("q", time.Time{})
		h.do(func(tx store.Tx) error {
			if err := tx.EnsureSchedules(h.ctx, []string{"s"}); err != nil {
				return err
			}
			return tx.AdvanceSchedule(h.ctx, "s", h.clock.Now(), named)
		})
		w := h.worker()
		h.reserve(w, 2, "q")
		h.complete(w, named, unnamed)
		h.wantCompleted(named, "a row a schedule names as its last run")
		h.wantGone(unnamed, "a row no schedule names")
	}},
	{"ASequenceGoesOnPastADeletedRow", func(h *harness) {
		h.setHistory("q", false)
		seq := h.insertSequenced("q", false, "k", "k")
		h.completeOne("q", seq[0])
		h.wantGone(seq[0], "a sequence's completed row")
		h.completeOne("q", seq[1])
		h.wantGone(seq[1], "the sequence's next row")
	}},
	{"SwitchingBackToKeepKeepsRows", func(h *harness) {
		h.setHistory("q", false)
		h.setHistory("q", true)
		if qs := h.state().Queues; len(qs) != 0 {
			h.t.Fatalf("queues rows after history is kept again: %+v", qs)
		}
		id := h.insert("q", time.Time{})
		h.completeOne("q", id)
		h.wantCompleted(id, "completed after history is kept again")
	}},
	{"AnInvalidQueueNameIsRefused", func(h *harness) {
		err := h.tx(func(tx store.Tx) error { return tx.SetQueueHistory(h.ctx, "", false) })
		h.wantErr(err, store.ErrInvalid, "SetQueueHistory of the empty name")
		if _, err := store.ParseHistory("forget"); !errors.Is(err, store.ErrInvalid) {
			h.t.Fatalf("ParseHistory(forget): %v, want ErrInvalid", err)
		}
	}},
}
