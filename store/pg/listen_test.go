package pg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// next returns the next notification, failing the test if none comes in
// time or the channel closes.
func next(t *testing.T, ch <-chan store.Notification) store.Notification {
	t.Helper()
	select {
	case n, ok := <-ch:
		if !ok {
			t.Fatal("the notification channel closed")
		}
		return n
	case <-time.After(30 * time.Second):
		t.Fatal("no notification within 30 s")
	}
	return store.Notification{}
}

// listenerPIDs returns the backends of the store's LISTEN connections.
// listenDone reports whether the listener's backend has finished a
// statement (its LISTEN comes first).
func listenDone(t *testing.T, s *pg.Store) bool {
	t.Helper()
	var done bool
	err := s.Pool().QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE application_name = $1 AND state = 'idle' AND query <> '')`, "tickwork listen "+s.Schema()).Scan(&done)
	if err != nil {
		t.Fatal(err)
	}
	return done
}

func listenerPIDs(t *testing.T, s *pg.Store) []int32 {
	t.Helper()
	rows, err := s.Pool().Query(t.Context(), "SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid", "tickwork listen "+s.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var pids []int32
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pids
}

func TestListenDeliversOnlyCommittedNotifications(t *testing.T) {
	s := pgtest.Open(t, nil)
	ch, err := s.Listen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rollback := errors.New("roll back")
	err = s.InTx(t.Context(), func(tx store.Tx) error {
		if _, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: newULID(t), Queue: "rolled-back", Payload: []byte(`1`)}}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "committed", Payload: []byte(`1`)})
	if n := next(t, ch); n != (store.Notification{Channel: store.ChannelAvailable, Queue: "committed"}) {
		t.Fatalf("first notification %+v, want the committed insert's (the rolled-back one must not arrive)", n)
	}

	w := newULID(t)
	err = s.InTx(t.Context(), func(tx store.Tx) error {
		if err := tx.RegisterWorker(t.Context(), w); err != nil {
			return err
		}
		if ok, err := tx.TryAcquireLease(t.Context(), w, time.Minute); !ok || err != nil {
			return errors.Join(errors.New("lease not acquired"), err)
		}
		_, err := tx.ReleaseLease(t.Context(), w)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := next(t, ch); n != (store.Notification{Channel: store.ChannelStepdown}) {
		t.Fatalf("after a lease release: %+v, want a stepdown notification", n)
	}
}

// TestListenReconnectsAfterTerminate kills the listener's backend and
// requires a new LISTEN connection, made only when the injected clock lets
// the reconnect backoff pass, that delivers notifications again.
func TestListenReconnectsAfterTerminate(t *testing.T) {
	mock := clockrng.NewMock()
	s := pgtest.OpenWith(t, pg.Options{Clock: mock})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch, err := s.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := listenerPIDs(t, s)
	if len(before) != 1 {
		t.Fatalf("listener backends %v, want one", before)
	}
	if _, err := s.Pool().Exec(t.Context(), "SELECT pg_terminate_backend($1)", before[0]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the terminated backend to go", func() bool { return len(listenerPIDs(t, s)) == 0 })
	time.Sleep(300 * time.Millisecond)
	if pids := listenerPIDs(t, s); len(pids) != 0 {
		t.Fatalf("the listener reconnected (%v) before its clock let the backoff pass", pids)
	}
	waitFor(t, "a new listener backend", func() bool {
		mock.Add(time.Second)
		return len(listenerPIDs(t, s)) == 1
	})
	if after := listenerPIDs(t, s); after[0] == before[0] {
		t.Fatalf("the listener backend is still %d", after[0])
	}
	// The backend shows before its LISTEN has run; a notification sent
	// meanwhile is lost (seen under load).
	waitFor(t, "the new backend's LISTEN", func() bool { return listenDone(t, s) })
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "after", Payload: []byte(`1`)})
	if n := next(t, ch); n != (store.Notification{Channel: store.ChannelAvailable, Queue: "after"}) {
		t.Fatalf("after reconnecting: %+v, want the new job's notification", n)
	}
	cancel()
	for range ch { // drain until closed: the goroutine has ended
	}
	waitFor(t, "the listener's connection to close", func() bool { return len(listenerPIDs(t, s)) == 0 })
}

func TestListenErrorWhenDatabaseUnreachable(t *testing.T) {
	cfg, err := pgxpool.ParseConfig("postgres://nobody:" + password + "@127.0.0.1:1/nodb?connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg) // connects lazily
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pg.New(pool, pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Listen(t.Context())
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Listen on a closed port: %v, want ErrUnavailable", err)
	}
	wantNamed(t, "Listen", err.Error(), "host=127.0.0.1", "port=1", "database=nodb")
}
