package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// Opener returns a fresh, empty store whose clock is now. The suite calls it
// once per subtest; it should register any clean-up with t.Cleanup.
type Opener func(t *testing.T, now func() time.Time) store.Store

// harness is one subtest's store, clock and id source.
type harness struct {
	t     *testing.T
	ctx   context.Context
	clock *Clock
	st    store.Store
	ids   *ulid.MonotonicEntropy
}

func newHarness(t *testing.T, open Opener) *harness {
	clock := NewClock(Epoch)
	return &harness{
		t:     t,
		ctx:   t.Context(),
		clock: clock,
		st:    open(t, clock.Now),
		ids:   ulid.Monotonic(clockrng.NewRand(1), 0),
	}
}

// now is the store time a transaction started now would get.
func (h *harness) now() time.Time { return h.clock.Now().Truncate(time.Microsecond) }

// newID returns an id greater than every earlier one of this harness.
func (h *harness) newID() ulid.ULID {
	return ulid.MustNew(ulid.Timestamp(h.clock.Now()), h.ids)
}

// tx runs fn in a transaction and returns its error.
func (h *harness) tx(fn func(store.Tx) error) error {
	return h.st.InTx(h.ctx, fn)
}

// do runs fn in a transaction and fails the test if it returns an error.
func (h *harness) do(fn func(store.Tx) error) {
	h.t.Helper()
	if err := h.tx(fn); err != nil {
		h.t.Fatalf("transaction failed: %v", err)
	}
}

// wantErr fails the test unless err wraps want.
func (h *harness) wantErr(err, want error, what string) {
	h.t.Helper()
	if !errors.Is(err, want) {
		h.t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// worker registers a new live worker.
func (h *harness) worker() ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error { return tx.RegisterWorker(h.ctx, id) })
	return id
}

// payload returns a small JSON document that names n, with spacing that
// a store must keep byte for byte.
func payload(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{ "n" : %d }`, n))
}

// insert inserts one job on queue, scheduled at at (zero: now), and returns
// its id.
func (h *harness) insert(queue string, at time.Time) ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: queue, Payload: payload(1), ScheduledAt: at}})
		return err
	})
	return id
}

// reserve reserves up to limit jobs of queues for worker.
func (h *harness) reserve(worker ulid.ULID, limit int, queues ...string) []store.Job {
	h.t.Helper()
	var got []store.Job
	h.do(func(tx store.Tx) (err error) {
		got, err = tx.Reserve(h.ctx, worker, queues, limit)
		return err
	})
	return got
}

// running inserts a job on queue and has worker reserve it.
func (h *harness) running(worker ulid.ULID, queue string) ulid.ULID {
	h.t.Helper()
	id := h.insert(queue, time.Time{})
	got := h.reserve(worker, 1, queue)
	if len(got) != 1 || got[0].ID != id {
		h.t.Fatalf("reserve of the only available job %s returned %v", id, ids(got))
	}
	return id
}

// fail marks a running job failed.
func (h *harness) fail(worker, id ulid.ULID, reason string) {
	h.t.Helper()
	h.do(func(tx store.Tx) error { return tx.FailJob(h.ctx, worker, id, reason) })
}

// job reads one row.
func (h *harness) job(id ulid.ULID) store.Job {
	h.t.Helper()
	var j store.Job
	h.do(func(tx store.Tx) (err error) {
		j, err = tx.GetJob(h.ctx, id)
		return err
	})
	return j
}

// state reads the whole store.
func (h *harness) state() store.State {
	h.t.Helper()
	s, err := store.Snapshot(h.ctx, h.st)
	if err != nil {
		h.t.Fatalf("transaction failed: %v", err)
	}
	return s
}

// wantJob fails the test unless the row id formats as want does.
func (h *harness) wantJob(id ulid.ULID, want store.Job) {
	h.t.Helper()
	if got := h.job(id); store.FormatJob(got) != store.FormatJob(want) {
		h.t.Fatalf("job %s:\n got  %s\n want %s", id, store.FormatJob(got), store.FormatJob(want))
	}
}

func ids(jobs []store.Job) []ulid.ULID {
	out := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

// failNext runs a new job on queue under worker and fails it; it returns
// the job's id.
func (h *harness) failNext(worker ulid.ULID, queue string) ulid.ULID {
	h.t.Helper()
	id := h.running(worker, queue)
	h.fail(worker, id, "failed on purpose")
	return id
}

// terminalJobs makes one job in each terminal status on queue q, using a
// worker that it then declares dead.
func (h *harness) terminalJobs() (completed, failed, cancelled, lost ulid.ULID) {
	h.t.Helper()
	w := h.worker()
	completed = h.running(w, "q")
	h.complete(w, completed)
	failed = h.failNext(w, "q")
	cancelled = h.insert("q", time.Time{})
	if _, err := h.cancel(cancelled); err != nil {
		h.t.Fatalf("cancel: %v", err)
	}
	lost = h.running(w, "q")
	h.declareDead(w)
	return completed, failed, cancelled, lost
}
