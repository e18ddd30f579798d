package pg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// queueJobs returns n new jobs of queue q with priority.
func queueJobs(t *testing.T, n, priority int) []store.NewJob {
	jobs := make([]store.NewJob, n)
	for i := range jobs {
		jobs[i] = store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`), Priority: priority}
	}
	return jobs
}

// reserveQ has worker reserve up to limit jobs of q in a transaction of
// its own and returns them.
func reserveQ(t *testing.T, s *pg.Store, worker ulid.ULID, limit int) []store.Job {
	t.Helper()
	var got []store.Job
	quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
		got, err = tx.Reserve(ctx, worker, []string{"q"}, limit)
		return err
	})
	return got
}

// TestReservationStartsAtItsHint: after a backlog's reservations, the
// next one reads jobs_available_idx after the last job the one before
// took, not past the entries of the 30,000 jobs reserved before it, which
// a reservation from the start of the queue's range reads.
func TestReservationStartsAtItsHint(t *testing.T) {
	t.Parallel() // a schema of its own
	s := pgtest.Open(t, nil)
	insert(t, s, queueJobs(t, 31_000, 0)...)
	w := registerWorkers(t, s, 1)[0]
	for range 300 {
		if got := reserveQ(t, s, w, 100); len(got) != 100 {
			t.Fatalf("reserved %d of the backlog, want 100", len(got))
		}
	}
	buffers := func(hint string) float64 {
		o := planOptions{mode: "force_generic_plan", guarded: true, analyze: true}
		plan := explainPlan(t, s, o, pg.PlainReserveSQL(s), "NULL, '"+idText(w)+"', '{q}', 100, "+hint)
		read := -1.0
		plan.walk(nil, func(n planNode, _ []planNode) {
			if n.Index == "jobs_available_idx" {
				read = n.Hit + n.Read
			}
		})
		if read < 0 {
			t.Fatalf("no scan of jobs_available_idx:\n%s", plan)
		}
		return read
	}
	fromHint, fromStart := buffers(pg.HintArgs(s, "q")), buffers(pg.FromStartSQL)
	t.Logf("buffers read to reserve 100 after 30,000: %.0f from the hint, %.0f from the start", fromHint, fromStart)
	if fromStart < 4*fromHint {
		t.Fatalf("reading from the hint took %.0f buffers, from the start %.0f: want at most a quarter", fromHint, fromStart)
	}
}

// TestAnotherStoresUrgentJobWaitsForAFullScan: a job that another Store
// (another process) made available below this Store's hint is reserved by
// the reservation that ignores the hints, at most FullScanEvery
// reservations later, while the backlog lasts.
func TestAnotherStoresUrgentJobWaitsForAFullScan(t *testing.T) {
	a := pgtest.Open(t, nil)
	b, err := pg.Open(t.Context(), pgtest.URL(t), pg.Options{Schema: a.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	insert(t, a, queueJobs(t, 100, 3)...)
	w := registerWorkers(t, a, 1)[0]
	reserveQ(t, a, w, 1) // learns a hint
	urgent := queueJobs(t, 1, 0)
	insert(t, b, urgent...)
	for n := 1; n <= pg.FullScanEvery; n++ {
		got := reserveQ(t, a, w, 1)
		if len(got) == 1 && got[0].ID == urgent[0].ID {
			if n == 1 {
				t.Fatal("the urgent job of another Store was reserved at once: the reservation read from the start, not its hint")
			}
			t.Logf("the urgent job was reserved by the %d-th reservation after its insert", n)
			return
		}
	}
	t.Fatalf("the urgent job of another Store was not reserved within %d reservations", pg.FullScanEvery)
}

// TestARolledBackReservationsJobGoesFirst: a reservation that rolls back
// returns its jobs below the hint that a later one of the same Store
// learned meanwhile, skipping them; the Store forgets that hint.
func TestARolledBackReservationsJobGoesFirst(t *testing.T) {
	s := pgtest.Open(t, nil)
	jobs := queueJobs(t, 10, 0)
	insert(t, s, jobs...)
	w := registerWorkers(t, s, 1)[0]
	held, release := make(chan []store.Job, 1), make(chan struct{})
	rolledBack := errors.New("rolled back")
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(t.Context(), func(tx store.Tx) error {
			got, err := tx.Reserve(t.Context(), w, []string{"q"}, 1)
			held <- got
			if err != nil {
				return err
			}
			<-release
			return rolledBack
		})
	}()
	first := <-held
	if len(first) != 1 || first[0].ID != jobs[0].ID {
		close(release)
		t.Fatalf("the held reservation took %v, want %s", jobIDs(first), jobs[0].ID)
	}
	second := reserveQ(t, s, w, 1) // skips the held row, learns a hint past it
	close(release)
	if err := <-done; !errors.Is(err, rolledBack) {
		t.Fatalf("the held reservation ended with %v", err)
	}
	if len(second) != 1 || second[0].ID != jobs[1].ID {
		t.Fatalf("the second reservation took %v, want %s", jobIDs(second), jobs[1].ID)
	}
	if got := reserveQ(t, s, w, 1); len(got) != 1 || got[0].ID != jobs[0].ID {
		t.Fatalf("after the rollback, reserved %v, want the rolled-back job %s", jobIDs(got), jobs[0].ID)
	}
}
