package interleave_test

import (
	"context"
	"encoding/json"
	"slices"
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
	jobs := newJobs(seed, len(labels))
	errs := r.inTx(labels, func(i int, ctx context.Context, tx store.Tx) error {
		if _, err := tx.InsertJobs(ctx, jobs[i:i+1]); err != nil {
			return err
		}
		_, err := tx.GetJob(ctx, jobs[i].ID)
		return err
	})
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
		var order []string
		for _, e := range events {
			if e.Kind != interleave.Release || strings.Join(e.Statements, "") != "commit" {
				continue
			}
			if !slices.Contains(e.Open, e.Conn) {
				t.Fatalf("seed %d: %s commits with no transaction open\n%s", seed, e.Conn, trace(events))
			}
			maxOpen = max(maxOpen, len(e.Open))
			order = append(order, e.Conn)
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

// TestCopyIsOneRoundTrip: a bulk insert (COPY: its Query, the rows and
// CopyDone, answered once) is one round trip under the gate, and two
// actors' bulk inserts interleave with each other's statements.
func TestCopyIsOneRoundTrip(t *testing.T) {
	w := newWorld(t)
	for seed := uint64(1); seed <= 3; seed++ {
		w.exec("DELETE FROM {schema}.jobs")
		r := w.run(seed, "a", "b")
		jobs := newJobs(seed, 200)
		errs := r.inTx([]string{"a", "b"}, func(i int, ctx context.Context, tx store.Tx) error {
			_, err := tx.InsertJobs(ctx, jobs[100*i:100*(i+1)])
			return err
		})
		events := r.finish()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("seed %d: %v\n%s", seed, errs, trace(events))
		}
		for _, conn := range []string{"a#0", "b#0"} {
			i := index(events, 0, func(e interleave.Event) bool {
				return e.Kind == interleave.Done && e.Conn == conn && slices.Contains(e.Tags, "COPY 100")
			})
			if i < 0 || !strings.HasPrefix(events[i].Statements[0], "copy ") {
				t.Fatalf("seed %d: no round trip of %s copied 100 rows\n%s", seed, conn, trace(events))
			}
		}
		var n int
		if err := w.admin.QueryRow(context.Background(), "SELECT count(*) FROM "+w.schema+".jobs").Scan(&n); err != nil || n != 200 {
			t.Fatalf("seed %d: %d jobs (%v), want 200", seed, n, err)
		}
	}
}

// newJobs returns n available jobs of queue q with ids drawn from seed.
func newJobs(seed uint64, n int) []store.NewJob {
	ids := clockrng.NewRand(seed).Child("ids")
	jobs := make([]store.NewJob, n)
	for k := range jobs {
		jobs[k] = store.NewJob{ID: clockrng.NewULID(clockrng.NewMock().Now(), ids), Queue: "q",
			Payload: json.RawMessage(`{}`), Metadata: json.RawMessage(`{}`)}
	}
	return jobs
}
