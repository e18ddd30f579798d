package storetest

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// insertPayload inserts one available job on queue with payload p.
func (h *harness) insertPayload(queue, p string) ulid.ULID {
	h.t.Helper()
	id := h.newID()
	h.do(func(tx store.Tx) error {
		_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: queue, Payload: json.RawMessage(p)}})
		return err
	})
	return id
}

// filterCases check the filters of bulk actions: age by the store's
// clock and payload text.
var filterCases = []testCase{
	{"AgeByStoreClockAndText", func(h *harness) {
		old := h.insertPayload("a", `{"to": "Ann@example.org"}`)
		h.clock.Advance(2 * time.Hour)
		mid := h.insertPayload("a", `{"to":"bob@example.org"}`)
		h.clock.Advance(30 * time.Minute)
		young := h.insertPayload("b", `{"to": "ann@example.org"}`)
		for _, c := range []struct {
			f    store.JobFilter
			want []ulid.ULID
		}{
			{store.JobFilter{OlderThan: time.Hour}, []ulid.ULID{old}},
			{store.JobFilter{OlderThan: 29 * time.Minute}, []ulid.ULID{old, mid}},
			{store.JobFilter{OlderThan: 3 * time.Hour}, nil},
			{store.JobFilter{Text: "ann@"}, []ulid.ULID{young}},
			{store.JobFilter{Text: `"to": "`}, []ulid.ULID{old, young}},
			{store.JobFilter{Text: "example"}, []ulid.ULID{old, mid, young}},
			{store.JobFilter{Text: "example", OlderThan: time.Minute, Queue: "a", Limit: 1, After: old}, []ulid.ULID{mid}},
			{store.JobFilter{Text: "nobody"}, nil},
		} {
			if got := h.list(c.f); !slices.Equal(got, c.want) {
				h.t.Errorf("ListJobs(%+v) = %v, want %v", c.f, got, c.want)
			}
		}
	}},
	{"NegativeAgeIsInvalid", func(h *harness) {
		err := h.tx(func(tx store.Tx) error {
			_, err := tx.ListJobs(h.ctx, store.JobFilter{OlderThan: -time.Second})
			return err
		})
		h.wantErr(err, store.ErrInvalid, "ListJobs with a negative age")
	}},
}
