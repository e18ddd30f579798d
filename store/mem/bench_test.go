package mem_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/store/storetest"
)

var benchPayload = json.RawMessage(`{"to":"someone@example.org","template":"welcome"}`)

// benchStore returns a store with a live worker and n available jobs on
// queue q, plus as many completed ones as history.
func benchStore(b *testing.B, n int) (*mem.Store, *storetest.Clock, ulid.ULID) {
	b.Helper()
	clock := storetest.NewClock(storetest.Epoch)
	st := mem.New(clock.Now)
	rnd := clockrng.NewRand(1)
	w := clockrng.NewULID(clock.Now(), rnd)
	ctx := context.Background()
	jobs := make([]store.NewJob, 0, 1000)
	flush := func() {
		if err := st.InTx(ctx, func(tx store.Tx) error { _, err := tx.InsertJobs(ctx, jobs); return err }); err != nil {
			b.Fatal(err)
		}
		jobs = jobs[:0]
	}
	for i := range n {
		jobs = append(jobs, store.NewJob{ID: clockrng.NewULID(clock.Advance(time.Microsecond), rnd), Queue: "q", Payload: benchPayload})
		if len(jobs) == cap(jobs) || i == n-1 {
			flush()
		}
	}
	if err := st.InTx(ctx, func(tx store.Tx) error { return tx.RegisterWorker(ctx, w) }); err != nil {
		b.Fatal(err)
	}
	return st, clock, w
}

// BenchmarkReserveComplete measures one job's path through a worker: a
// transaction that reserves it and one that completes it.
func BenchmarkReserveComplete(b *testing.B) {
	st, clock, w := benchStore(b, b.N)
	ctx := context.Background()
	queues := []string{"q"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clock.Advance(time.Microsecond)
		var got []store.Job
		err := st.InTx(ctx, func(tx store.Tx) (err error) {
			got, err = tx.Reserve(ctx, w, queues, 1)
			return err
		})
		if err != nil || len(got) != 1 {
			b.Fatalf("reserve: %v, %d jobs", err, len(got))
		}
		err = st.InTx(ctx, func(tx store.Tx) error {
			fenced, err := tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{got[0].ID}})
			if len(fenced) != 0 {
				b.Fatalf("fenced %v", fenced)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsert measures inserting one job per transaction into a store
// that already holds a backlog.
func BenchmarkInsert(b *testing.B) {
	st, clock, _ := benchStore(b, 10000)
	rnd := clockrng.NewRand(2)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		j := []store.NewJob{{ID: clockrng.NewULID(clock.Advance(time.Microsecond), rnd), Queue: "q", Payload: benchPayload}}
		if err := st.InTx(ctx, func(tx store.Tx) error { _, err := tx.InsertJobs(ctx, j); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLeaderPass measures one leader transaction over a store of 10,000
// scheduled and 10,000 finished jobs: lock, dead workers, rescue,
// promotion and retention, most of which find nothing to do.
func BenchmarkLeaderPass(b *testing.B) {
	st, clock, w := benchStore(b, 10000)
	ctx := context.Background()
	rnd := clockrng.NewRand(3)
	var later []store.NewJob
	for range 10000 {
		later = append(later, store.NewJob{ID: clockrng.NewULID(clock.Now(), rnd), Queue: "q", Payload: benchPayload, ScheduledAt: clock.Now().Add(24 * time.Hour)})
	}
	err := st.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.Reserve(ctx, w, []string{"q"}, 10000); err != nil {
			return err
		}
		_, err := tx.InsertJobs(ctx, later)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clock.Advance(time.Millisecond)
		err := st.InTx(ctx, func(tx store.Tx) error {
			if _, err := tx.LockLeaderDuties(ctx, w); err != nil {
				return err
			}
			if _, err := tx.ShutdownDeadWorkers(ctx, time.Hour); err != nil {
				return err
			}
			if _, err := tx.RescueLostJobs(ctx); err != nil {
				return err
			}
			if _, err := tx.PromoteScheduledJobs(ctx); err != nil {
				return err
			}
			if _, err := tx.DeleteOldJobs(ctx, 30*24*time.Hour, 1000); err != nil {
				return err
			}
			_, err := tx.DeleteOldWorkers(ctx, 7*24*time.Hour)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
