package interleave_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// overlapRun runs three actors, each inserting a job and reading it back in
// one store transaction, and returns the events and each actor's error.
func overlapRun(t *testing.T, w *world, seed uint64) ([]interleave.Event, map[string]error) {
	w.exec("DELETE FROM {schema}.jobs")
	labels := []string{"a", "b", "c"}
	r := w.run(seed, labels...)
	errs := make([]error, len(labels))
	ids := clockrng.NewRand(seed).Child("ids")
	for i, l := range labels {
		s, id := r.stores[l], clockrng.NewULID(clockrng.NewMock().Now(), ids)
		r.ctl.Go(l, func() {
			ctx := context.Background()
			errs[i] = s.InTx(ctx, func(tx store.Tx) error {
				job := store.NewJob{ID: id, Queue: "q", Payload: json.RawMessage(`{}`), Metadata: json.RawMessage(`{}`)}
				if err := tx.InsertJobs(ctx, []store.NewJob{job}); err != nil {
					return err
				}
				_, err := tx.GetJob(ctx, id)
				return err
			})
		})
	}
	events := r.finish()
	byLabel := map[string]error{}
	for i, l := range labels {
		byLabel[l] = errs[i]
	}
	return events, byLabel
}

// TestTransactionsOverlap: under the gate, the transactions of separate
// stores are open at once and commit in orders that the seed decides.
func TestTransactionsOverlap(t *testing.T) {
	w := newWorld(t)
	orders := map[string]bool{}
	maxOpen := 0
	for seed := uint64(1); seed <= 8; seed++ {
		events, errs := overlapRun(t, w, seed)
		for l, err := range errs {
			if err != nil {
				t.Fatalf("seed %d: actor %s: %v\n%s", seed, l, err, trace(events))
			}
		}
		open := map[string]bool{}
		var order []string
		for _, e := range events {
			if e.Kind != interleave.Done {
				continue
			}
			open[e.Conn] = e.Tx == "open"
			maxOpen = max(maxOpen, count(open))
			if strings.Join(e.Statements, "") == "commit" {
				order = append(order, e.Conn)
			}
		}
		if len(order) != 3 {
			t.Fatalf("seed %d: %d commits, want 3\n%s", seed, len(order), trace(events))
		}
		orders[strings.Join(order, " ")] = true
		var n int
		if err := w.admin.QueryRow(context.Background(), "SELECT count(*) FROM "+w.schema+".jobs").Scan(&n); err != nil || n != 3 {
			t.Fatalf("seed %d: %d jobs (%v), want 3", seed, n, err)
		}
	}
	if maxOpen < 2 {
		t.Errorf("at most %d transactions were open at once over 8 seeds; want several", maxOpen)
	}
	if len(orders) < 2 {
		t.Errorf("every seed committed in the same order %v; the seed should decide it", orders)
	}
	t.Logf("at most %d open at once; commit orders: %v", maxOpen, orders)
}

func count(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
