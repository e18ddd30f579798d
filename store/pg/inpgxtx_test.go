package pg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// userTx begins a transaction the way a user's code would, on a plain
// connection whose search_path does not include the store's schema.
func userTx(t *testing.T) (pgx.Tx, *pgx.Conn) {
	t.Helper()
	conn := connect(t)
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tx, conn
}

func enqueueIn(t *testing.T, s *pg.Store, outer pgx.Tx, job store.NewJob) {
	t.Helper()
	err := s.InPgxTx(t.Context(), outer, func(tx store.Tx) error { _, err := tx.InsertJobs(t.Context(), []store.NewJob{job}); return err })
	if err != nil {
		t.Fatal(err)
	}
}

func TestInPgxTxJobExistsOnlyIfCallerCommits(t *testing.T) {
	s := pgtest.Open(t, nil)
	committed, rolledBack := newULID(t), newULID(t)

	outer, _ := userTx(t)
	enqueueIn(t, s, outer, store.NewJob{ID: committed, Queue: "q", Payload: []byte(`1`)})
	if _, ok := getJob(t, s, committed); ok {
		t.Fatal("the job is visible before the caller's transaction committed")
	}
	if err := outer.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if j, ok := getJob(t, s, committed); !ok || j.Status != store.Available {
		t.Fatalf("after the caller committed: job %+v, found %v; want it available", j, ok)
	}

	outer, _ = userTx(t)
	enqueueIn(t, s, outer, store.NewJob{ID: rolledBack, Queue: "q", Payload: []byte(`2`)})
	if err := outer.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := getJob(t, s, rolledBack); ok {
		t.Fatal("the job exists although the caller rolled back")
	}
}

// TestInPgxTxFailureKeepsCallerTxUsable: a failing fn is undone under its
// savepoint; the caller's own writes and later enqueues still commit.
func TestInPgxTxFailureKeepsCallerTxUsable(t *testing.T) {
	s := pgtest.Open(t, nil)
	undone, kept := newULID(t), newULID(t)
	outer, _ := userTx(t)
	if _, err := outer.Exec(t.Context(), "CREATE TEMP TABLE user_rows (n int) ON COMMIT DROP; INSERT INTO user_rows VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("the caller's fn fails")
	err := s.InPgxTx(t.Context(), outer, func(tx store.Tx) error {
		if _, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: undone, Queue: "q", Payload: []byte(`1`)}}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InPgxTx returned %v, want fn's error", err)
	}
	// A duplicate id fails inside PostgreSQL; the savepoint keeps outer alive.
	enqueueIn(t, s, outer, store.NewJob{ID: kept, Queue: "q", Payload: []byte(`2`)})
	err = s.InPgxTx(t.Context(), outer, func(tx store.Tx) error {
		_, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: kept, Queue: "q", Payload: []byte(`3`)}})
		return err
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("inserting a duplicate id: %v, want ErrConflict", err)
	}
	var n int
	if err := outer.QueryRow(t.Context(), "SELECT count(*) FROM user_rows").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the caller's transaction after the failures: count = %d, %v", n, err)
	}
	if err := outer.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := getJob(t, s, undone); ok {
		t.Error("the job of the failed fn exists")
	}
	if j, ok := getJob(t, s, kept); !ok || string(j.Payload) != `2` {
		t.Errorf("the job enqueued after the failure: %+v, found %v; want payload 2", j, ok)
	}
}

// TestDuplicateInsertLeavesTxUsable: ErrConflict from InsertJobs, as in
// store/mem, undoes only that call.
func TestDuplicateInsertLeavesTxUsable(t *testing.T) {
	s := pgtest.Open(t, nil)
	first, second := newULID(t), newULID(t)
	insert(t, s, store.NewJob{ID: first, Queue: "q", Payload: []byte(`1`)})
	err := s.InTx(t.Context(), func(tx store.Tx) error {
		_, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: second, Queue: "q", Payload: []byte(`2`)}, {ID: first, Queue: "q", Payload: []byte(`3`)}})
		if !errors.Is(err, store.ErrConflict) {
			t.Errorf("batch with a duplicate id: %v, want ErrConflict", err)
		}
		return tx.RegisterWorker(t.Context(), newULID(t))
	})
	if err != nil {
		t.Fatalf("the transaction after ErrConflict: %v", err)
	}
	if _, ok := getJob(t, s, second); ok {
		t.Error("a job of the rejected batch was inserted")
	}
}

func TestInTxRollsBackOnPanic(t *testing.T) {
	s := pgtest.Open(t, nil)
	id := newULID(t)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the caller")
			}
		}()
		_ = s.InTx(t.Context(), func(tx store.Tx) error {
			if _, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: id, Queue: "q", Payload: []byte(`1`)}}); err != nil {
				return err
			}
			panic("handler bug")
		})
	}()
	if _, ok := getJob(t, s, id); ok {
		t.Fatal("the job of the panicking transaction exists")
	}
	// The pool is still usable.
	if err := s.InTx(context.Background(), func(tx store.Tx) error { _, err := tx.ListWorkers(t.Context()); return err }); err != nil {
		t.Fatal(err)
	}
}

// TestTxUsedAfterInTxFails covers the methods that would not reach pgx (a
// cached Now, empty batches), as well as one that would.
func TestTxUsedAfterInTxFails(t *testing.T) {
	s := pgtest.Open(t, func() time.Time { return time.Unix(1e9, 0) })
	var kept store.Tx
	if err := s.InTx(t.Context(), func(tx store.Tx) error { kept = tx; _, err := tx.Now(t.Context()); return err }); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for name, err := range map[string]error{
		"Now":             func() error { _, err := kept.Now(ctx); return err }(),
		"InsertJobs(nil)": func() error { _, err := kept.InsertJobs(ctx, nil); return err }(),
		"CompleteJobs": func() error {
			_, err := kept.CompleteJobs(ctx, store.Completion{Worker: newULID(t), IDs: nil})
			return err
		}(),
		"EnsureSchedules": kept.EnsureSchedules(ctx, nil),
		"GetLease":        func() error { _, err := kept.GetLease(ctx); return err }(),
	} {
		if !errors.Is(err, pg.ErrTxDone) {
			t.Errorf("%s on a finished transaction: %v, want ErrTxDone", name, err)
		}
	}
}

// TestSequencedEnqueueNeedsReadCommitted: under REPEATABLE READ an
// enqueue reads a sequence's last place from a snapshot taken before the
// key's lock, so it would share a place with a job committed meanwhile.
// It is refused, leaving the caller's transaction usable; so under
// SERIALIZABLE, which catches no conflict with the store's own READ
// COMMITTED enqueues. READ COMMITTED enqueues.
func TestSequencedEnqueueNeedsReadCommitted(t *testing.T) {
	s := pgtest.Open(t, nil)
	job := func() store.NewJob {
		return store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`), SequenceKey: "k"}
	}
	for _, iso := range []pgx.TxIsoLevel{pgx.RepeatableRead, pgx.Serializable, pgx.ReadCommitted} {
		outer, err := connect(t).BeginTx(t.Context(), pgx.TxOptions{IsoLevel: iso})
		if err != nil {
			t.Fatal(err)
		}
		var one int
		if err := outer.QueryRow(t.Context(), "SELECT 1").Scan(&one); err != nil { // the snapshot
			t.Fatal(err)
		}
		insert(t, s, job()) // committed after it
		mine := job()
		err = s.InPgxTx(t.Context(), outer, func(tx store.Tx) error {
			_, err := tx.InsertJobs(t.Context(), []store.NewJob{mine})
			return err
		})
		if refused := errors.Is(err, store.ErrInvalid); refused != (iso != pgx.ReadCommitted) {
			t.Fatalf("%s: enqueue of a sequenced job: %v", iso, err)
		}
		if err := outer.QueryRow(t.Context(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("%s: the caller's transaction after the enqueue: %v", iso, err)
		}
		if err := outer.Commit(t.Context()); err != nil {
			t.Fatalf("%s: commit: %v", iso, err)
		}
	}
	snap, err := store.Snapshot(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	jobs := snap.Jobs
	places := map[int64]bool{}
	for _, j := range jobs {
		if places[j.Sequence.Pos] {
			t.Errorf("two jobs at place %d of sequence k", j.Sequence.Pos)
		}
		places[j.Sequence.Pos] = true
	}
	if len(jobs) != 4 {
		t.Errorf("%d jobs, want 4: three committed beside, one enqueued in the caller's transaction", len(jobs))
	}
}

// TestStoreTransactionsAreReadCommitted: a server whose default isolation
// is REPEATABLE READ still gets READ COMMITTED transactions from the
// store, so its own sequenced enqueues are not refused.
func TestStoreTransactionsAreReadCommitted(t *testing.T) {
	url := pg.WithParam(pgtest.URL(t), "default_transaction_isolation", "repeatable read")
	s, err := pg.Open(t.Context(), url, pg.Options{Schema: pgtest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	var iso string
	if err := s.Pool().QueryRow(t.Context(), "SHOW transaction_isolation").Scan(&iso); err != nil || iso != "repeatable read" {
		t.Fatalf("the server's default for this test: %q, %v; want repeatable read", iso, err)
	}
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`), SequenceKey: "k"})
}
