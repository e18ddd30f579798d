package mem_test

import (
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// TestConcurrentWorkersReserveEachJobOnce runs workers in goroutines against
// one store: every job must be reserved by exactly one of them.
func TestConcurrentWorkersReserveEachJobOnce(t *testing.T) {
	f := newFixture(t)
	f.st.SetCommitHook(nil)
	const workers, jobs = 4, 400
	var batch []store.NewJob
	for i := range jobs {
		batch = append(batch, store.NewJob{ID: f.id(), Queue: "q", Payload: []byte{'0' + byte(i%10)}})
	}
	f.do(func(tx store.Tx) error { _, err := tx.InsertJobs(f.ctx, batch); return err })
	got := make([][]ulid.ULID, workers)
	var wg sync.WaitGroup
	for w := range workers {
		id := clockrng.NewULID(f.clock.Now(), clockrng.NewRand(uint64(w)))
		f.do(func(tx store.Tx) error { return tx.RegisterWorker(f.ctx, id) })
		wg.Go(func() {
			for {
				var reserved []store.Job
				err := f.st.InTx(f.ctx, func(tx store.Tx) (err error) {
					reserved, err = tx.Reserve(f.ctx, id, []string{"q"}, 3)
					if err != nil || len(reserved) == 0 {
						return err
					}
					_, err = tx.CompleteJobs(f.ctx, store.Completion{Worker: id, IDs: []ulid.ULID{reserved[0].ID}})
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				if len(reserved) == 0 {
					return
				}
				for _, j := range reserved {
					got[w] = append(got[w], j.ID)
				}
			}
		})
	}
	wg.Wait()
	seen := map[ulid.ULID]bool{}
	for _, ids := range got {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("job %s reserved twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != jobs {
		t.Fatalf("%d jobs reserved, want %d", len(seen), jobs)
	}
}
