package pg_test

import (
	"context"
	"testing"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestLimitSetByAnotherProcessHolds: a store whose reservations found no
// limit sends the reservation without slots; when another process then
// limits the queue, that reservation takes nothing beyond the limit (it
// takes nothing from the queue at all), and the next one claims slots and
// fills the limit exactly.
func TestLimitSetByAnotherProcessHolds(t *testing.T) {
	s := pgtest.Open(t, nil)
	other, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: s.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	w := registerWorkers(t, s, 1)[0]
	for range 10 {
		insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)})
	}
	reserve := func(n int) []store.Job { t.Helper(); return reserveQ(t, s, w, n) }
	if got := reserve(2); len(got) != 2 {
		t.Fatalf("reserved %d jobs of an unlimited queue, want 2", len(got))
	}
	quickly(t, other, "limit", func(ctx context.Context, tx store.Tx) error { return tx.SetQueueLimit(ctx, "q", 3) })
	if got := reserve(5); len(got) != 0 {
		t.Fatalf("the first reservation after another process's limit of 3 (2 running) took %d jobs, want none", len(got))
	}
	if got := reserve(5); len(got) != 1 {
		t.Fatalf("the next reservation took %d jobs, want the 1 the limit of 3 leaves beside 2 running", len(got))
	}
	quickly(t, other, "rate", func(ctx context.Context, tx store.Tx) error {
		if err := tx.SetQueueLimit(ctx, "q", 0); err != nil {
			return err
		}
		return tx.SetQueueRate(ctx, "q", 0, 0)
	})
	if got := reserve(2); len(got) != 2 {
		t.Fatalf("reserved %d jobs once the limit was removed, want 2", len(got))
	}
}
