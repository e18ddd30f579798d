package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
)

// TestSeededRowsAreCompletedJobs seeds a few thousand finished rows beside
// one job a worker really completed: apart from ids, times and the worker,
// every column holds what the worker left; tickwork's store lists them as
// completed jobs whose ULIDs carry their enqueue time; retention keeps
// them for the default 30 days and deletes them once that time has come.
func TestSeededRowsAreCompletedJobs(t *testing.T) {
	ctx := context.Background()
	s, err := freshTickwork(ctx, testURL(t), fmt.Sprintf("benchtest_seed_%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	completeOneJob(t, s)
	const n = 3_000 // more than one chunk would be slow here; add's loop is checked by the numbering
	sd := newSeeder(s.st.Pool(), s.tables, time.Now().Add(-time.Minute))
	if err := sd.add(ctx, n-1000); err != nil {
		t.Fatal(err)
	}
	if err := sd.add(ctx, 1000); err != nil { // a second level goes on numbering
		t.Fatal(err)
	}
	var shapes int
	if err := s.st.Pool().QueryRow(ctx, `SELECT count(DISTINCT to_jsonb(j) - '{id,created_at,scheduled_at,started_at,started_by,completed_at}'::text[])
		FROM `+s.tables+`.jobs AS j`).Scan(&shapes); err != nil {
		t.Fatal(err)
	}
	if shapes != 1 {
		t.Errorf("the seeded rows and the worker's row differ in %d shapes besides ids and times, want 1", shapes)
	}
	jobs := listCompleted(t, s, n+10)
	if len(jobs) != n+1 {
		t.Fatalf("the store lists %d completed jobs, want %d seeded and 1 processed", len(jobs), n)
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		if j.ID.Time() != uint64(j.CreatedAt.UnixMilli()) {
			t.Fatalf("job %s: its ULID's time %d ms is not its created_at %v", j.ID, j.ID.Time(), j.CreatedAt)
		}
		if seen[j.ID.String()] {
			t.Fatalf("id %s seeded twice", j.ID)
		}
		seen[j.ID.String()] = true
		if !j.CompletedAt.After(j.CreatedAt) || j.StartedBy == (store.Job{}).StartedBy {
			t.Fatalf("job %s: created %v, completed %v, started by %s: not what a worker leaves", j.ID, j.CreatedAt, j.CompletedAt, j.StartedBy)
		}
	}
	if got := deleteOld(t, s, worker.DefaultConfig().JobRetention, 2*n); got != 0 {
		t.Errorf("retention of %v deleted %d seeded rows, want none: they ended within the last hour", worker.DefaultConfig().JobRetention, got)
	}
	if got := deleteOld(t, s, 0, 2*n); got != n+1 {
		t.Errorf("retention of 0 deleted %d rows, want all %d", got, n+1)
	}
}

// completeOneJob enqueues a no-op job and has a worker complete it.
func completeOneJob(t *testing.T, s *tickworkSystem) {
	t.Helper()
	ctx := context.Background()
	if err := s.Insert(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	hw, err := startHistoryWorker(ctx, s, historyFlags{inflight: 10}, "off")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, err := s.completed(ctx); err != nil || n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not complete the job within 30 s")
		}
	}
	if err := hw.stop(); err != nil {
		t.Fatal(err)
	}
}

func listCompleted(t *testing.T, s *tickworkSystem, limit int) []store.Job {
	t.Helper()
	var jobs []store.Job
	err := s.st.InTx(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(context.Background(), store.JobFilter{Status: store.Completed, Queue: "noop", Limit: limit})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func deleteOld(t *testing.T, s *tickworkSystem, age time.Duration, limit int) int {
	t.Helper()
	var n int
	err := s.st.InTx(context.Background(), func(tx store.Tx) (err error) {
		n, err = tx.DeleteOldJobs(context.Background(), age, limit)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
