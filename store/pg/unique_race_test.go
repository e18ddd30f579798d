package pg_test

import (
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// Two transactions enqueue one key at once: the second waits for the
// first and, once it commits, gets its row as a duplicate — not an error,
// not a second row.
func TestConcurrentUniqueEnqueueWaitsAndReportsTheDuplicate(t *testing.T) {
	s := pgtest.Open(t, nil)
	ctx := t.Context()
	first := store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`), UniqueKey: "k"}
	second := store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`2`), UniqueKey: "k"}
	inserted, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(ctx, func(tx store.Tx) error {
			if _, err := tx.InsertJobs(ctx, []store.NewJob{first}); err != nil {
				return err
			}
			close(inserted)
			<-release
			return nil
		})
	}()
	<-inserted
	type answer struct {
		dups []store.Duplicate
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		var a answer
		a.err = s.InTx(ctx, func(tx store.Tx) (err error) { a.dups, err = tx.InsertJobs(ctx, []store.NewJob{second}); return err })
		got <- a
	}()
	select {
	case a := <-got:
		t.Fatalf("the second insert did not wait for the first transaction: %v, %v", a.dups, a.err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.err != nil || len(a.dups) != 1 || a.dups[0].Existing.ID != first.ID {
		t.Fatalf("second insert: duplicates %v, error %v; want a duplicate of %s", a.dups, a.err, first.ID)
	}
	snap, err := store.Snapshot(ctx, s)
	if err != nil || len(snap.Jobs) != 1 {
		t.Fatalf("%d rows (%v), want 1", len(snap.Jobs), err)
	}
}
