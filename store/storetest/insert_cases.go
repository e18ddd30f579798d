package storetest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

var insertCases = []testCase{
	{"RowOfAnAvailableJob", func(h *harness) {
		id := h.newID()
		meta := json.RawMessage(`{"traceparent":"00-1"}`)
		h.do(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: id, Queue: "email", Payload: payload(7), Metadata: meta, ScheduleName: "nightly"}})
			return err
		})
		h.wantJob(id, store.Job{ID: id, Queue: "email", Payload: payload(7), Metadata: meta, Status: store.Available,
			CreatedAt: h.now(), ScheduledAt: h.now(), ScheduleName: "nightly"})
	}},
	{"NilMetadataIsEmptyObject", func(h *harness) {
		id := h.insert("q", time.Time{})
		if got := string(h.job(id).Metadata); got != "{}" {
			h.t.Fatalf("metadata = %q, want {}", got)
		}
	}},
	{"FutureIsScheduledPastIsAvailable", func(h *harness) {
		future := h.clock.Now().Add(time.Minute)
		past := h.clock.Now().Add(-time.Minute)
		f := h.insert("q", future)
		p := h.insert("q", past)
		n := h.insert("q", h.clock.Now())
		for _, c := range []struct {
			id     ulid.ULID
			status store.Status
			at     time.Time
		}{{f, store.Scheduled, future}, {p, store.Available, past}, {n, store.Available, h.clock.Now()}} {
			j := h.job(c.id)
			if j.Status != c.status || !j.ScheduledAt.Equal(c.at.Truncate(time.Microsecond)) || !j.CreatedAt.Equal(h.now()) {
				h.t.Errorf("want %s at %s: %s", c.status, ts(c.at), store.FormatJob(j))
			}
		}
	}},
	{"InvalidJobWritesNothing", func(h *harness) {
		good := store.NewJob{ID: h.newID(), Queue: "q", Payload: payload(1)}
		bad := map[string]store.NewJob{
			"bad JSON":       {ID: h.newID(), Queue: "q", Payload: json.RawMessage(`{"a":`)},
			"empty payload":  {ID: h.newID(), Queue: "q"},
			"oversized":      {ID: h.newID(), Queue: "q", Payload: json.RawMessage(`"` + strings.Repeat("x", store.MaxPayloadBytes) + `"`)},
			"empty queue":    {ID: h.newID(), Queue: "", Payload: payload(1)},
			"long queue":     {ID: h.newID(), Queue: strings.Repeat("q", store.MaxQueueNameBytes+1), Payload: payload(1)},
			"bad metadata":   {ID: h.newID(), Queue: "q", Payload: payload(1), Metadata: json.RawMessage(`nope`)},
			"empty metadata": {ID: h.newID(), Queue: "q", Payload: payload(1), Metadata: json.RawMessage{}},
			"invalid UTF-8":  {ID: h.newID(), Queue: "q", Payload: json.RawMessage("\"\xff\"")},
			// What PostgreSQL refuses with a raw SQLSTATE (22021, 22008)
			// is refused before it, the same way in every store.
			"NUL in queue":           {ID: h.newID(), Queue: "q\x00", Payload: payload(1)},
			"invalid UTF-8 queue":    {ID: h.newID(), Queue: "q\xff", Payload: payload(1)},
			"NUL in schedule name":   {ID: h.newID(), Queue: "q", Payload: payload(1), ScheduleName: "s\x00"},
			"invalid UTF-8 schedule": {ID: h.newID(), Queue: "q", Payload: payload(1), ScheduleName: "\xc3"},
			"year 300000":            {ID: h.newID(), Queue: "q", Payload: payload(1), ScheduledAt: time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)},
			"year 10000":             {ID: h.newID(), Queue: "q", Payload: payload(1), ScheduledAt: store.MaxTime.Add(time.Microsecond)},
			"before year 1":          {ID: h.newID(), Queue: "q", Payload: payload(1), ScheduledAt: store.MinTime.Add(-time.Microsecond)},
		}
		for _, name := range sortedKeys(bad) {
			err := h.tx(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, []store.NewJob{good, bad[name]}); return err })
			h.wantErr(err, store.ErrInvalid, name)
			if strings.Contains(err.Error(), "SQLSTATE") {
				h.t.Errorf("%s: the database, not the store, refused it: %v", name, err)
			}
		}
		if s := h.state(); len(s.Jobs) != 0 {
			h.t.Fatalf("invalid batches wrote:\n%s", s)
		}
	}},
	{"TimesAtTheEdgesOfTheRange", func(h *harness) {
		first, last := store.MinTime.Add(time.Microsecond), store.MaxTime
		early, late := h.insert("q", first), h.insert("q", last)
		if j := h.job(early); j.Status != store.Available || !j.ScheduledAt.Equal(first) {
			h.t.Errorf("job at %s: %s", ts(first), store.FormatJob(j))
		}
		if j := h.job(late); j.Status != store.Scheduled || !j.ScheduledAt.Equal(last) {
			h.t.Errorf("job at %s: %s", ts(last), store.FormatJob(j))
		}
	}},
	{"DuplicateIDWritesNothing", func(h *harness) {
		dup := h.insert("q", time.Time{})
		before := h.state()
		fresh := h.newID()
		err := h.tx(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: fresh, Queue: "q", Payload: payload(1)}, {ID: dup, Queue: "r", Payload: payload(2)}})
			return err
		})
		h.wantErr(err, store.ErrConflict, "insert of an existing id")
		twice := h.newID()
		err = h.tx(func(tx store.Tx) error {
			_, err := tx.InsertJobs(h.ctx, []store.NewJob{{ID: twice, Queue: "q", Payload: payload(1)}, {ID: twice, Queue: "q", Payload: payload(1)}})
			return err
		})
		h.wantErr(err, store.ErrConflict, "insert of an id twice in one batch")
		if after := h.state(); after.String() != before.String() {
			h.t.Fatalf("duplicate inserts wrote:\n%s", after)
		}
	}},
	{"EmptyBatch", func(h *harness) {
		h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, nil); return err })
		if s := h.state(); len(s.Jobs) != 0 {
			h.t.Fatalf("empty batch wrote:\n%s", s)
		}
	}},
	{"LargeBatch", func(h *harness) {
		var jobs []store.NewJob
		for i := range 1000 {
			jobs = append(jobs, store.NewJob{ID: h.newID(), Queue: []string{"a", "b"}[i%2], Payload: payload(i)})
		}
		h.do(func(tx store.Tx) error { _, err := tx.InsertJobs(h.ctx, jobs); return err })
		s := h.state()
		if len(s.Jobs) != len(jobs) {
			h.t.Fatalf("%d rows after inserting %d", len(s.Jobs), len(jobs))
		}
		for i, j := range s.Jobs {
			if j.ID != jobs[i].ID || string(j.Payload) != string(jobs[i].Payload) || j.Queue != jobs[i].Queue {
				h.t.Fatalf("row %d = %s, want id %s", i, store.FormatJob(j), jobs[i].ID)
			}
		}
	}},
}
