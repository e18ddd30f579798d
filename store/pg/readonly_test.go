package pg_test

import (
	"errors"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// makeReadOnly makes the only connection of s's pool read-only, the way a
// primary being demoted refuses writes: every write on it fails with
// SQLSTATE 25006 until the pool makes a new connection.
func makeReadOnly(t *testing.T, s *pg.Store) {
	t.Helper()
	ctx := t.Context()
	conn, err := s.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET SESSION default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
}

// wantReadOnlyRetried checks the first attempt's error and runs the retry.
func wantReadOnlyRetried(t *testing.T, what string, attempt func() error) {
	t.Helper()
	err := attempt()
	if !errors.Is(err, store.ErrUnavailable) || !pg.Retryable(err) {
		t.Fatalf("%s on a read-only connection: %v, want a retryable ErrUnavailable", what, err)
	}
	if err := attempt(); err != nil {
		t.Fatalf("%s retried: %v, want it to run on a new connection", what, err)
	}
}

// TestReadOnlyConnectionIsDropped: a transaction that meets a read-only
// node (SQLSTATE 25006) fails as retryable, and its connection is dropped,
// so that the retry gets a new one instead of failing forever.
func TestReadOnlyConnectionIsDropped(t *testing.T) {
	s := pgtest.OpenWith(t, pg.Options{MaxConns: 1})
	makeReadOnly(t, s)
	ctx := t.Context()
	wantReadOnlyRetried(t, "an insert", func() error {
		return s.InTx(ctx, func(tx store.Tx) error {
			_, err := tx.InsertJobs(ctx, []store.NewJob{{ID: ulid.Make(), Queue: "q", Payload: []byte(`{}`)}})
			return err
		})
	})
}

// TestReadOnlyJobPassIsDropped is the same for the pipelined job pass,
// which does not go through InTx.
func TestReadOnlyJobPassIsDropped(t *testing.T) {
	s := pgtest.OpenWith(t, pg.Options{MaxConns: 1})
	ctx := t.Context()
	w := registerWorkers(t, s, 1)[0]
	makeReadOnly(t, s)
	wantReadOnlyRetried(t, "a job pass", func() error {
		_, err := store.RunJobPass(ctx, s, store.JobPass{Worker: w, Heartbeat: true, Queues: []string{"q"}, Limit: 1})
		return err
	})
}
