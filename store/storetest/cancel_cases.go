package storetest

import (
	"fmt"
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
}
