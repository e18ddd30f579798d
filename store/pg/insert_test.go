package pg_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// oddJobs returns n jobs whose payloads and metadata test byte-for-byte
// storage (spacing, escapes, unicode, big numbers) and whose times and
// queues vary around now.
func oddJobs(now time.Time, n int) []store.NewJob {
	docs := []string{`{ "a" :1 }`, `[1, 2,3]`, `"\u0000 \ud83d\ude00 é"`, `12345678901234567890.5e3`, " \n{}\t", `null`, `{"a":1,"a":2}`}
	rnd := clockrng.NewRand(uint64(n)) // a different batch size gives different ids
	jobs := make([]store.NewJob, n)
	for i := range jobs {
		j := store.NewJob{
			ID:      clockrng.NewULID(now, rnd),
			Queue:   fmt.Sprintf("queue-%c", 'a'+i%5),
			Payload: json.RawMessage(docs[i%len(docs)]),
		}
		if i%3 == 0 {
			j.Metadata = json.RawMessage(docs[(i+1)%len(docs)])
		}
		switch i % 4 {
		case 1:
			j.ScheduledAt = now.Add(-time.Duration(i) * time.Second)
		case 2:
			j.ScheduledAt = now.Add(time.Duration(i)*time.Second + 789*time.Nanosecond)
		case 3:
			j.ScheduledAt = now // not after now: available
		}
		if i%7 == 0 {
			j.ScheduleName = "sched"
		}
		jobs[i] = j
	}
	// queue-e only gets scheduled jobs: it must not be notified.
	for i := range jobs {
		if jobs[i].Queue == "queue-e" {
			jobs[i].ScheduledAt = now.Add(time.Hour)
		}
	}
	return jobs
}

// TestBatchInsertMatchesMem inserts a COPY-sized batch and a small batch
// into store/pg and store/mem with the same clock: the rows must be the
// same, and the notifications one per queue with an available row, in
// queue order.
func TestBatchInsertMatchesMem(t *testing.T) {
	t.Parallel() // a schema of its own
	now := time.Date(2025, 6, 1, 8, 30, 0, 123456789, time.UTC)
	clock := func() time.Time { return now }
	pgs, ms := pgtest.Open(t, clock), mem.New(clock)
	notes, err := pgs.Listen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{500, 9} { // COPY, then one INSERT
		jobs := oddJobs(now, n)
		for _, st := range []store.Store{pgs, ms} {
			if err := st.InTx(t.Context(), func(tx store.Tx) error { _, err := tx.InsertJobs(t.Context(), jobs); return err }); err != nil {
				t.Fatalf("insert %d jobs: %v", n, err)
			}
		}
		var want []string
		for _, j := range jobs {
			if j.ScheduledAt.After(now) {
				continue
			}
			want = append(want, j.Queue)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		var got []string
		for range want {
			got = append(got, next(t, notes).Queue)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("batch of %d: notified queues %v, want %v", n, got, want)
		}
	}
	read := func(st store.Store) string {
		s, err := store.Snapshot(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		return s.String()
	}
	if a, b := read(pgs), read(ms); a != b {
		t.Fatalf("store/pg and store/mem hold different rows:\npg:\n%s\nmem:\n%s", a, b)
	}
}

// TestDatabaseClock: without Options.Now the store's time is the database
// transaction's start, in UTC and whole microseconds, the same for Tx.Now
// and every row the transaction writes, on both insert paths.
func TestDatabaseClock(t *testing.T) {
	s := pgtest.Open(t, nil)
	var now, again time.Time
	w := newULID(t)
	var copied, single []store.NewJob
	for i := range 100 {
		copied = append(copied, store.NewJob{ID: newULID(t), Queue: "q", Payload: fmt.Appendf(nil, "%d", i)})
	}
	single = append(single, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	err := s.InTx(t.Context(), func(tx store.Tx) (err error) {
		if err := tx.RegisterWorker(t.Context(), w); err != nil {
			return err
		}
		if _, err := tx.InsertJobs(t.Context(), copied); err != nil {
			return err
		}
		if _, err := tx.InsertJobs(t.Context(), single); err != nil {
			return err
		}
		if now, err = tx.Now(t.Context()); err != nil {
			return err
		}
		again, err = tx.Now(t.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !now.Equal(again) || now.Location() != time.UTC || now.Nanosecond()%1000 != 0 {
		t.Fatalf("Tx.Now = %v then %v; want one UTC time in whole microseconds", now, again)
	}
	var workers []store.Worker
	var jobs []store.Job
	err = s.InTx(t.Context(), func(tx store.Tx) (err error) {
		if workers, err = tx.ListWorkers(t.Context()); err != nil {
			return err
		}
		jobs, err = tx.ListJobs(t.Context(), store.JobFilter{Limit: 1000})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(workers) != 1 || workers[0].RegisteredAt != now || workers[0].LastSeenAt != now {
		t.Fatalf("worker %+v, want registered and seen at %v", workers, now)
	}
	if len(jobs) != len(copied)+len(single) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(copied)+len(single))
	}
	for _, j := range jobs {
		if j.CreatedAt != now || j.ScheduledAt != now || j.Status != store.Available {
			t.Fatalf("job %s created %v scheduled %v %s; want both at %v, available", j.ID, j.CreatedAt, j.ScheduledAt, j.Status, now)
		}
	}
	if ids := jobIDs(jobs); !slices.IsSortedFunc(ids, ulid.ULID.Compare) {
		t.Fatal("ListJobs is not in id order")
	}
}

func jobIDs(jobs []store.Job) []ulid.ULID {
	out := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}
