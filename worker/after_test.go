package worker_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// TestAfterRefusesWhatCannotWait: an index that is not an earlier
// payload's, and a job with parents made unique, are errors naming what
// is wrong, and nothing is written.
func TestAfterRefusesWhatCannotWait(t *testing.T) {
	ctx := context.Background()
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	self := worker.AfterInBatch(func(i int) []int { return []int{i} })
	_, err := worker.EnqueueMany(ctx, client, []Welcome{{User: "a"}, {User: "b"}}, worker.WithQueue("q"), self)
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "payload 0 waits for payload 0") {
		t.Fatalf("a payload waiting for itself: %v", err)
	}
	parent, err := worker.Enqueue(ctx, client, Welcome{User: "p"}, worker.WithQueue("q"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = worker.Enqueue(ctx, client, Welcome{User: "c"}, worker.WithQueue("q"), worker.After(parent), worker.WithUniqueKey("k"))
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "cannot be unique") {
		t.Fatalf("a unique job with parents: %v", err)
	}
	_, err = worker.Enqueue(ctx, client, Welcome{User: "s"}, worker.WithQueue("q"), worker.After(parent), worker.SequenceKey("order-1"))
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), `sequence key "order-1"`) {
		t.Fatalf("a sequenced job with parents: %v", err)
	}
	queues, _ := client.ListQueues(ctx)
	if len(queues) != 1 || queues[0].Counts[store.Available] != 1 || len(queues[0].Counts) != 1 {
		t.Fatalf("queues %+v after the refused enqueues, want the parent alone", queues)
	}
}

// TestAfterInBatchRunsAnyway: a job whose parents are all in its batch may
// run anyway, and waits for both After's ids and its batch parents.
func TestAfterInBatchRunsAnyway(t *testing.T) {
	ctx := context.Background()
	st := mem.New(time.Now)
	client := worker.NewClient(st, nil)
	outside, err := worker.Enqueue(ctx, client, Welcome{User: "o"}, worker.WithQueue("q"))
	if err != nil {
		t.Fatal(err)
	}
	first := worker.AfterInBatch(func(i int) []int { return []int{0}[:min(i, 1)] })
	ids, err := worker.EnqueueMany(ctx, client, []Welcome{{User: "a"}, {User: "b"}}, worker.WithQueue("q"), first, worker.RunAnyway())
	if err != nil {
		t.Fatal(err)
	}
	ids2, err := worker.EnqueueMany(ctx, client, []Welcome{{User: "c"}, {User: "d"}}, worker.WithQueue("q"), first, worker.After(outside))
	if err != nil {
		t.Fatal(err)
	}
	_ = st.InTx(ctx, func(tx store.Tx) error {
		a, _ := tx.GetJob(ctx, ids[0])
		b, _ := tx.GetJob(ctx, ids[1])
		d, _ := tx.GetJob(ctx, ids2[1])
		if a.Status != store.Available || b.Status != store.Waiting || !b.RunAnyway || !slices.Equal(b.Parents, ids[:1]) {
			t.Errorf("first batch: %s and %s waiting for %v anyway %v", a.Status, b.Status, b.Parents, b.RunAnyway)
		}
		if want := append([]ulid.ULID{outside}, ids2[0]); !slices.Equal(d.Parents, want) {
			t.Errorf("d waits for %v, want %v", d.Parents, want)
		}
		return nil
	})
}
