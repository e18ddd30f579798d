package storetest

import (
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// cancel runs CancelJob.
func (h *harness) cancel(id ulid.ULID) (store.Job, error) {
	var j store.Job
	err := h.tx(func(tx store.Tx) (err error) { j, err = tx.CancelJob(h.ctx, id); return err })
	return j, err
}

// cancelledAmong runs CancelledJobs.
func (h *harness) cancelledAmong(ids ...ulid.ULID) []ulid.ULID {
	h.t.Helper()
	var out []ulid.ULID
	h.do(func(tx store.Tx) (err error) { out, err = tx.CancelledJobs(h.ctx, ids); return err })
	return out
}

func cancelNote(id ulid.ULID) store.Notification {
	return store.Notification{Channel: store.ChannelCancel, Job: id}
}

var cancelCases = []testCase{
	{"LiveRowsCancel", func(h *harness) {
		w := h.worker()
		run := h.running(w, "q")
		for _, id := range []ulid.ULID{h.insert("q", h.clock.Now().Add(time.Hour)), h.insert("q", time.Time{}), run} {
			before := h.job(id)
			h.clock.Advance(time.Second)
			got, err := h.cancel(id)
			if err != nil {
				h.t.Fatalf("cancel %s: %v", before.Status, err)
			}
			want := before
			want.Status, want.CancelledAt = store.Cancelled, h.now()
			if store.FormatJob(got) != store.FormatJob(want) {
				h.t.Fatalf("cancelled %s row:\n got  %s\n want %s", before.Status, store.FormatJob(got), store.FormatJob(want))
			}
			h.wantJob(id, want)
		}
		if got := h.reserve(w, 5, "q"); len(got) != 0 {
			h.t.Fatalf("reserved cancelled rows %v", ids(got))
		}
	}},
	{"TerminalOrUnknownRefused", func(h *harness) {
		done, failed, cancelled, lost := h.terminalJobs()
		before := h.state()
		for _, id := range []ulid.ULID{done, failed, lost, cancelled} {
			_, err := h.cancel(id)
			h.wantErr(err, store.ErrConflict, fmt.Sprintf("cancel of %s", h.job(id).Status))
		}
		_, err := h.cancel(h.newID())
		h.wantErr(err, store.ErrNotFound, "cancel of an unknown job")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("refused cancels changed the store:\n%s", after)
		}
	}},
	{"CancelFromRefusesAJobThatMovedOn", func(h *harness) {
		w := h.worker()
		id := h.insert("q", time.Time{})
		h.wantTook(h.reserve(w, 1, "q"), "the job read as available", id)
		before := h.state()
		err := h.tx(func(tx store.Tx) error { _, err := tx.CancelJobFrom(h.ctx, id, store.Available); return err })
		h.wantErr(err, store.ErrConflict, "a cancel from available of a running job")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("a refused cancel changed the store:\n%s", after)
		}
		var got store.Job
		h.do(func(tx store.Tx) (err error) { got, err = tx.CancelJobFrom(h.ctx, id, store.Running); return err })
		if got.Status != store.Cancelled {
			h.t.Fatalf("cancel from running left %s", store.FormatJob(got))
		}
	}},
	{"RunningCancelNotifiesItsID", func(h *harness) {
		// Only a running row has a handler to stop: cancelling a waiting
		// row notifies nothing (the sentinel insert comes next).
		w := h.worker()
		run := h.running(w, "q")
		waiting := []ulid.ULID{h.insert("q", h.clock.Now().Add(time.Hour)), h.insert("q", time.Time{})}
		ch := h.listen()
		for _, id := range append(waiting, run) {
			if _, err := h.cancel(id); err != nil {
				h.t.Fatal(err)
			}
		}
		h.insert("sentinel", time.Time{})
		h.wantNotes(ch, cancelNote(run), available("sentinel"))
	}},
	{"RolledBackCancelIsSilent", func(h *harness) {
		w := h.worker()
		run := h.running(w, "q")
		ch := h.listen()
		_ = h.tx(func(tx store.Tx) error {
			if _, err := tx.CancelJob(h.ctx, run); err != nil {
				return err
			}
			return errAbort
		})
		if got := h.job(run).Status; got != store.Running {
			h.t.Fatalf("a rolled-back cancel left the row %s", got)
		}
		h.insert("sentinel", time.Time{})
		h.wantNotes(ch, available("sentinel"))
	}},
	{"CancelledJobsAmongIDs", func(h *harness) {
		w := h.worker()
		ranThenCancelled, stillRunning := h.running(w, "q"), h.running(w, "q")
		done, failed, _, lost := h.terminalJobs()
		waitedThenCancelled := h.insert("q", time.Time{})
		for _, id := range []ulid.ULID{waitedThenCancelled, ranThenCancelled} {
			if _, err := h.cancel(id); err != nil {
				h.t.Fatal(err)
			}
		}
		before := h.state()
		got := h.cancelledAmong(stillRunning, ranThenCancelled, done, h.newID(), waitedThenCancelled, failed, lost, ranThenCancelled)
		want := []ulid.ULID{ranThenCancelled, waitedThenCancelled}
		slices.SortFunc(want, ulid.ULID.Compare)
		if !slices.Equal(got, want) {
			h.t.Fatalf("CancelledJobs = %v, want %v (id order, each once)", got, want)
		}
		if got := h.cancelledAmong(); len(got) != 0 {
			h.t.Fatalf("CancelledJobs of no ids = %v", got)
		}
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("CancelledJobs changed the store:\n%s", after)
		}
	}},
}
