package worker

import (
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
)

// A duplicate enqueue returns the existing job's id and reports it, through
// Enqueue, EnqueueTx and EnqueueMany alike; nothing is inserted twice.
func TestEnqueueUniqueReturnsTheExistingJob(t *testing.T) {
	st, c := newMemClient(t)
	ctx := t.Context()
	type dup struct {
		i  int
		id string
	}
	var seen []dup
	report := WithOnDuplicate(func(i int, j store.Job) { seen = append(seen, dup{i, j.ID.String()}) })
	first, err := Enqueue(ctx, c, "a", WithQueue("q"), WithUniqueKey("k"), report)
	if err != nil || len(seen) != 0 {
		t.Fatalf("first enqueue: %v, duplicates %v", err, seen)
	}
	again, err := Enqueue(ctx, c, "b", WithQueue("q"), WithUniqueKey("k"), report)
	if err != nil || again != first || len(seen) != 1 || seen[0] != (dup{0, first.String()}) {
		t.Fatalf("second enqueue: id %s (first %s), error %v, duplicates %v", again, first, err, seen)
	}
	var inTx string
	err = st.InTx(ctx, func(tx store.Tx) error {
		id, err := EnqueueTx(ctx, c, tx, "c", WithQueue("q"), WithUniqueKey("k"))
		inTx = id.String()
		return err
	})
	if err != nil || inTx != first.String() {
		t.Fatalf("EnqueueTx of a duplicate: %s, %v; want %s", inTx, err, first)
	}
	seen = nil
	ids, err := EnqueueMany(ctx, c, []string{"x", "y", "x"}, WithQueue("q"), WithUniqueByPayload(), WithUniquePeriod(time.Hour), report)
	if err != nil || len(ids) != 3 || ids[2] != ids[0] || ids[1] == ids[0] || len(seen) != 1 || seen[0] != (dup{2, ids[0].String()}) {
		t.Fatalf("EnqueueMany by payload: ids %v, error %v, duplicates %v", ids, err, seen)
	}
	snap, err := store.Snapshot(ctx, st)
	if err != nil || len(snap.Jobs) != 3 {
		t.Fatalf("%d rows (%v), want 3:\n%s", len(snap.Jobs), err, snap)
	}
	_, err = Enqueue(ctx, c, "z", WithQueue("q"), WithUniqueWhile(store.Completed))
	if err == nil {
		t.Fatal("WithUniqueWhile without a key was accepted")
	}
}
