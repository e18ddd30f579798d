package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func (h *harness) setKeyLimit(q string, n int) {
	h.t.Helper()
	h.queueOp(func(tx store.Tx) error { return tx.SetQueueKeyLimit(h.ctx, q, n) })
}

// insertKeyed inserts an available job of queue with partition key key
// ("" for none).
func (h *harness) insertKeyed(queue, key string) ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: queue, Payload: payload(1), PartitionKey: key}})
		return err
	})
	return id
}

// insertKeys inserts one job of queue per key, in order.
func (h *harness) insertKeys(queue string, keys ...string) []ulid.ULID {
	h.t.Helper()
	out := make([]ulid.ULID, len(keys))
	for i, k := range keys {
		out[i] = h.insertKeyed(queue, k)
	}
	return out
}

// wantTook fails unless the reservation took exactly want.
func (h *harness) wantTook(got []store.Job, what string, want ...ulid.ULID) {
	h.t.Helper()
	slices.SortFunc(want, func(a, b ulid.ULID) int { return a.Compare(b) })
	if !slices.Equal(ids(got), want) {
		h.t.Fatalf("%s: reserved %v, want %v", what, ids(got), want)
	}
}

var keyLimitCases = []testCase{
	{"KeyLimitHoldsAcrossWorkers", func(h *harness) {
		a, b := h.worker(), h.worker()
		j := h.insertKeys("q", "hot", "hot", "hot", "hot", "cold", "")
		h.setKeyLimit("q", 2)
		h.wantTook(h.reserve(a, 10, "q"), "worker a under a per-key limit of 2", j[0], j[1], j[4], j[5])
		h.wantTook(h.reserve(b, 10, "q"), "worker b with hot at its limit", []ulid.ULID{}...)
		h.complete(a, j[0])
		h.wantTook(h.reserve(b, 10, "q"), "worker b after one hot job finished", j[2])
		h.setKeyLimit("q", 0)
		h.wantTook(h.reserve(b, 10, "q"), "worker b after the per-key limit was removed", j[3])
		if s := h.state(); len(s.Queues) != 0 {
			h.t.Fatalf("queues rows %+v after the per-key limit was removed, want none", s.Queues)
		}
	}},
	{"KeyLimitSkipsAHotKeysBacklog", func(h *harness) {
		// The cold job comes after the hot backlog in reservation order,
		// and still runs as soon as a reservation has room for it.
		w := h.worker()
		h.setKeyLimit("q", 1)
		j := h.insertKeys("q", "hot", "hot", "hot", "hot", "hot", "cold")
		h.wantTook(h.reserve(w, 1, "q"), "the first reservation", j[0])
		h.wantTook(h.reserve(w, 1, "q"), "the second, with hot at its limit", j[5])
		h.wantTook(h.reserve(w, 1, "q"), "the third, with every key at its limit", []ulid.ULID{}...)
	}},
	{"KeyLimitHoldsWithTheQueueLimit", func(h *harness) {
		w := h.worker()
		j := h.insertKeys("q", "a", "a", "a", "b", "b", "b")
		h.setLimit("q", 3)
		h.setKeyLimit("q", 2)
		h.wantTook(h.reserve(w, 10, "q"), "limit 3 and per-key 2", j[0], j[1], j[3])
		h.complete(w, j[0], j[1])
		h.wantTook(h.reserve(w, 10, "q"), "after two of a finished", j[2], j[4])
		if qs := h.queues(); len(qs) != 1 || qs[0].Limit != 3 || qs[0].KeyLimit != 2 {
			h.t.Fatalf("ListQueues %+v, want q with limit 3 and per-key limit 2", qs)
		}
	}},
	{"KeysArePerQueue", func(h *harness) {
		w := h.worker()
		q := h.insertKeys("q", "k", "k")
		r := h.insertKeys("r", "k", "k")
		h.setKeyLimit("q", 1)
		h.wantTook(h.reserve(w, 10, "q", "r"), "q limited per key, r not", q[0], r[0], r[1])
	}},
	{"PartitionKeySurvivesRetryAndSnooze", func(h *harness) {
		w := h.worker()
		id := h.insertKeyed("q", "tenant-42")
		if got := h.reserve(w, 1, "q"); len(got) != 1 || got[0].PartitionKey != "tenant-42" {
			h.t.Fatalf("reserved %+v, want the job with key tenant-42", got)
		}
		h.fail(w, id, "once")
		retried := h.retry(id, 0)
		h.reserve(w, 1, "q")
		snoozed := h.snooze(w, retried.ID, time.Minute)
		for _, j := range []store.Job{retried, snoozed, h.job(snoozed.ID)} {
			if j.PartitionKey != "tenant-42" {
				h.t.Fatalf("row %s has key %q, want the job's tenant-42", j.ID, j.PartitionKey)
			}
		}
	}},
	{"ALargeBatchKeepsItsKeys", func(h *harness) {
		// store/pg copies a large batch (COPY) rather than inserting it.
		batch := make([]store.NewJob, 200)
		for i := range batch {
			batch[i] = store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(i), PartitionKey: []string{"", "a", "b"}[i%3]}
		}
		h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, batch); return err })
		for i, nj := range batch {
			if got := h.job(nj.ID).PartitionKey; got != nj.PartitionKey {
				h.t.Fatalf("job %d of the batch has key %q, want %q", i, got, nj.PartitionKey)
			}
		}
		h.setKeyLimit("q", 3)
		w := h.worker()
		if got := h.reserve(w, 100, "q"); len(got) != 3+3+67 {
			h.t.Fatalf("reserved %d of a batch of 200 under a per-key limit of 3, want 3 a, 3 b and the 67 without a key", len(got))
		}
	}},
	{"BadKeysAndKeyLimitsAreRefused", func(h *harness) {
		for _, key := range []string{strings.Repeat("k", store.MaxPartitionKeyBytes+1), "a\x00b", "\xff"} {
			err := h.tx(func(tx store.Tx) error {
				_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: h.newID(), Queue: "q", Payload: payload(1), PartitionKey: key}})
				return err
			})
			h.wantErr(err, store.ErrInvalid, "insert with partition key "+key[:min(len(key), 8)])
		}
		h.insertKeyed("q", strings.Repeat("k", store.MaxPartitionKeyBytes))
		for _, n := range []int{-1, store.MaxQueueLimit + 1} {
			err := h.tx(func(tx store.Tx) error { return tx.SetQueueKeyLimit(h.ctx, "q", n) })
			h.wantErr(err, store.ErrInvalid, "per-key limit out of range")
		}
		err := h.tx(func(tx store.Tx) error { return tx.SetQueueKeyLimit(h.ctx, "", 3) })
		h.wantErr(err, store.ErrInvalid, "per-key limit of a queue without a name")
	}},
	{"RaisedKeyLimitWakesTheQueue", func(h *harness) {
		h.setKeyLimit("a", 1)
		ch := h.listen()
		h.setKeyLimit("a", 1) // unchanged: silent
		h.setKeyLimit("a", 2)
		h.setKeyLimit("a", 1) // lowered: silent
		h.setKeyLimit("a", 0)
		h.wantNotes(ch, available("a"), available("a"))
	}},
}
