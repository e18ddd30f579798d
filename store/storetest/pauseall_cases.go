package storetest

import (
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The conformance cases of PauseAll: one row, named store.AllQueues, that
// every reservation path reads.

func (h *harness) pauseAll() {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.PauseAll(h.ctx) })
}

func (h *harness) resumeAll() {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.ResumeAll(h.ctx) })
}

func (h *harness) pausedAll() time.Time {
	h.t.Helper()
	var at time.Time
	h.do(func(tx store.Tx) (err error) { at, err = tx.PausedAll(h.ctx); return err })
	return at
}

// wantNothingReserved fails if a reservation, or a job pass, of queues
// takes a job; it tries twice, so that store/pg's choice of statement
// follows what the first one read.
func (h *harness) wantNothingReserved(w ulid.ULID, queues ...string) {
	h.t.Helper()
	for range 2 {
		if got := h.reserve(w, 10, queues...); len(got) != 0 {
			h.t.Fatalf("reserved %v of %v while every queue is paused", ids(got), queues)
		}
		if res := h.pass(store.JobPass{Worker: w, Queues: queues, Limit: 10}); len(res.Reserved) != 0 {
			h.t.Fatalf("job pass reserved %v of %v while every queue is paused", ids(res.Reserved), queues)
		}
	}
}

var pauseAllCases = []testCase{
	{"ReservesNothingUntilResumedNewQueuesToo", func(h *harness) {
		w := h.worker()
		run := h.running(w, "q")
		h.pauseAll()
		if at := h.pausedAll(); !at.Equal(h.now()) {
			h.t.Fatalf("PausedAll = %s, want %s", ts(at), ts(h.now()))
		}
		waiting := h.insert("q", time.Time{}) // enqueueing goes on
		later := h.insert("new", time.Time{}) // a queue that had no job before the pause
		h.wantNothingReserved(w, "q", "new")
		h.complete(w, run) // running jobs finish
		if h.job(run).Status != store.Completed {
			h.t.Fatalf("running job did not complete under pause-all: %s", store.FormatJob(h.job(run)))
		}
		h.resumeAll()
		if at := h.pausedAll(); !at.IsZero() {
			h.t.Fatalf("PausedAll = %s after ResumeAll, want zero", ts(at))
		}
		if got := h.reserve(w, 10, "q", "new"); !slices.Equal(ids(got), sortedIDs(waiting, later)) {
			h.t.Fatalf("reserved %v after resume-all, want %v", ids(got), sortedIDs(waiting, later))
		}
	}},
	{"HoldsLimitedRatedKeyedAndSequencedQueues", func(h *harness) {
		w := h.worker()
		h.setLimit("limited", 5)
		h.setRate("rated", 5, time.Minute)
		h.setKeyLimit("keyed", 1)
		h.insert("limited", time.Time{})
		h.insert("rated", time.Time{})
		h.insertKeys("keyed", "a", "b")
		h.insertSequenced("seq", false, "s")
		all := []string{"keyed", "limited", "rated", "seq"}
		h.pauseAll()
		h.wantNothingReserved(w, all...)
		h.resumeAll()
		if got := h.reserve(w, 10, all...); len(got) != 5 {
			h.t.Fatalf("reserved %v after resume-all, want the 5 jobs", ids(got))
		}
	}},
	{"IsOneRowKeptApartFromEachQueuesPause", func(h *harness) {
		h.pause("q")
		h.pauseAll()
		first := h.now()
		h.clock.Advance(time.Minute)
		h.pauseAll()
		want := []store.Queue{{Name: store.AllQueues, PausedAt: first}, {Name: "q", PausedAt: first}}
		if s := h.state(); !slices.Equal(s.Queues, want) {
			h.t.Fatalf("queues rows %+v, want %+v", s.Queues, want)
		}
		if got := h.queues(); len(got) != 1 || got[0].Name != "q" {
			h.t.Fatalf("ListQueues = %+v, want only q (not the pause-all row)", got)
		}
		h.resumeAll()
		h.resumeAll() // a no-op
		if s := h.state(); !slices.Equal(s.Queues, want[1:]) {
			h.t.Fatalf("queues rows %+v after resume-all, want q still paused: %+v", s.Queues, want[1:])
		}
	}},
	{"ResumeAllWakesEveryWorker", func(h *harness) {
		ch := h.listen()
		h.pauseAll()
		h.resumeAll()
		h.insert("q", time.Time{})
		h.wantNotes(ch, available(store.AllQueues), available("q"))
	}},
}

// sortedIDs returns ids in id order, as reservations return them.
func sortedIDs(ids ...ulid.ULID) []ulid.ULID {
	slices.SortFunc(ids, func(a, b ulid.ULID) int { return a.Compare(b) })
	return ids
}
