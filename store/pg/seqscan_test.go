package pg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestJobPathNeverReadsJobsSequentially runs the job path, and the
// client's unique enqueues and cancels, on a table of a few dozen rows, where a sequential scan is the cheapest plan for most of
// its statements, and checks from the server's statistics that none read
// jobs sequentially. Each statement runs more than five times, so that
// PostgreSQL settles on the generic plan it then keeps for the
// connection: kept from a small table, a sequential plan reads the whole
// table at every call once it has grown, until its statistics
// change, which with autovacuum off they never do.
func TestJobPathNeverReadsJobsSequentially(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	open := func() *pg.Store {
		s, err := pg.Open(ctx, pg.WithParam(url, "application_name", schema), pg.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	setup := open()
	if err := setup.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rnd := clockrng.NewRand(7)
	worker := registerWorkers(t, setup, 1)[0]
	insertTiny(t, setup, rnd, 40)
	setup.Close()
	before := settledJobScans(t, url, schema)
	s := open()
	defer s.Close()

	var running []ulid.ULID
	for range 8 { // passes: complete the last ones, check them for cancels, reserve
		res, err := store.RunJobPass(ctx, s, store.JobPass{Worker: worker, Queues: []string{"tiny"}, Limit: 2,
			Complete: []store.Completion{{Worker: worker, IDs: running}}, Executing: running})
		if err != nil {
			t.Fatal(err)
		}
		running = jobIDs(res.Reserved)
	}
	for range 6 { // every way a Tx ends a run, each on a job of its own
		res, err := store.RunJobPass(ctx, s, store.JobPass{Worker: worker, Queues: []string{"tiny"}, Limit: 4,
			Complete: []store.Completion{{Worker: worker, IDs: running}}})
		if err != nil || len(res.Reserved) != 4 {
			t.Fatalf("reserve 4: %d, %v", len(res.Reserved), err)
		}
		ids := jobIDs(res.Reserved)
		quickly(t, s, "end runs", func(ctx context.Context, tx store.Tx) error {
			if _, err := tx.CompleteJobs(ctx, store.Completion{Worker: worker, IDs: ids[:1]}); err != nil {
				return err
			}
			if _, err := tx.CancelledJobs(ctx, ids); err != nil {
				return err
			}
			if err := tx.FailJob(ctx, worker, ids[1], "boom"); err != nil {
				return err
			}
			if _, err := tx.ScheduleRetry(ctx, ids[1], clockrng.NewULID(time.Now(), rnd), time.Hour); err != nil {
				return err
			}
			_, err := tx.SnoozeJob(ctx, worker, ids[2], clockrng.NewULID(time.Now(), rnd), time.Hour)
			return err
		})
		running = ids[3:]
	}
	live := store.StatusesOf(store.Scheduled, store.Available, store.Running, store.Cancelled)
	for i := range 12 { // the client's side: batches of unique enqueues, then the same keys again, and cancels
		batch := make([]store.NewJob, 20)
		for k := range batch {
			batch[k] = store.NewJob{ID: clockrng.NewULID(time.Now(), rnd), Queue: "tiny", Payload: []byte(`{}`),
				UniqueKey: fmt.Sprintf("key-%d-%d", i%6, k), UniqueStates: live}
		}
		quickly(t, s, "enqueue", func(ctx context.Context, tx store.Tx) error {
			dups, err := tx.InsertJobs(ctx, batch)
			switch {
			case err != nil:
				return err
			case i >= 6 && len(dups) != len(batch):
				return fmt.Errorf("the enqueue of %d held keys reported %d duplicates", len(batch), len(dups))
			case i < 6:
				_, err = tx.CancelJob(ctx, batch[0].ID)
			}
			return err
		})
	}
	s.Close() // a backend reports its counts as it exits
	after := settledJobScans(t, url, schema)
	if after.idx <= before.idx {
		t.Fatalf("the job path's index scans of jobs were not reported: %d before, %d after", before.idx, after.idx)
	}
	if after.seq != before.seq {
		t.Errorf("the job path read jobs sequentially %d times (and by index %d times)", after.seq-before.seq, after.idx-before.idx)
	}
}

// insertTiny inserts n available jobs of queue tiny.
func insertTiny(t *testing.T, s *pg.Store, rnd *clockrng.Rand, n int) {
	t.Helper()
	jobs := make([]store.NewJob, n)
	for i := range jobs {
		jobs[i] = store.NewJob{ID: clockrng.NewULID(time.Now(), rnd), Queue: "tiny", Payload: []byte(`{}`)}
	}
	quickly(t, s, "insert jobs", func(ctx context.Context, tx store.Tx) error { _, err := tx.InsertJobs(ctx, jobs); return err })
}

// scans are the server's counts of the scans of a table.
type scans struct{ seq, idx int64 }

// jobScans reads the server's counts of the scans of schema's jobs table.
func jobScans(t *testing.T, conn *pgx.Conn, schema string) scans {
	t.Helper()
	var n scans
	err := conn.QueryRow(context.Background(), `SELECT seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'jobs'`,
		schema).Scan(&n.seq, &n.idx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// settledJobScans waits until no backend of a closed store (named schema)
// is left, and a little longer for the last to report its counts as it
// exits, then returns the counts of the scans of schema's jobs table.
func settledJobScans(t *testing.T, url, schema string) scans {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var left int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, schema).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends of the closed store are still connected", left)
		}
	}
	// A backend leaves pg_stat_activity just before it writes its counts.
	time.Sleep(200 * time.Millisecond)
	return jobScans(t, conn, schema)
}
