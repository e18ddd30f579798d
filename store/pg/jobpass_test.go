package pg_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestJobPassIsOneTransaction makes the reservation fail inside the
// database (a trigger refuses it) and requires the whole pipelined pass to
// be undone: the heartbeat and the completion sent before it in the same
// batch must not have happened.
func TestJobPassIsOneTransaction(t *testing.T) {
	s := pgtest.Open(t, nil)
	ctx := t.Context()
	w := registerWorkers(t, s, 1)[0]
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	var running []store.Job
	quickly(t, s, "reserve", func(ctx context.Context, tx store.Tx) (err error) {
		running, err = tx.Reserve(ctx, w, []string{"q"}, 1)
		return err
	})
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	schema := pgx.Identifier{s.Schema()}.Sanitize()
	for _, q := range []string{
		`CREATE FUNCTION ` + schema + `.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
		`CREATE TRIGGER refuse_reservations BEFORE UPDATE ON ` + schema + `.jobs FOR EACH ROW WHEN (NEW.status = 'running') EXECUTE FUNCTION ` + schema + `.refuse()`,
	} {
		if _, err := s.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before := workerRow(t, s, w)
	_, err := store.RunJobPass(ctx, s, store.JobPass{Worker: w, Heartbeat: true,
		Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{running[0].ID}}}, Queues: []string{"q"}, Limit: 1})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Message != "refused by the test" {
		t.Fatalf("pass: %v, want the trigger's error", err)
	}
	if j, _ := getJob(t, s, running[0].ID); j.Status != store.Running {
		t.Errorf("the completion of a failed pass was applied: %s", j.Status)
	}
	if after := workerRow(t, s, w); after != before {
		t.Errorf("the heartbeat of a failed pass was applied: %+v -> %+v", before, after)
	}
}

// TestReservationShareLocksTheWorker: while a transaction that reserved is
// open, the worker's row is share-locked, so a leader cannot declare the
// worker dead until the reservation commits. JobPass sends the same
// liveness statement.
func TestReservationShareLocksTheWorker(t *testing.T) {
	s := pgtest.Open(t, nil)
	w := registerWorkers(t, s, 1)[0]
	release := holdTx(t, s, func(tx store.Tx) error {
		_, err := tx.Reserve(t.Context(), w, []string{"q"}, 1)
		return err
	})
	_, err := s.Pool().Exec(t.Context(), "SELECT 1 FROM "+pgx.Identifier{s.Schema(), "workers"}.Sanitize()+
		" WHERE id = $1 FOR UPDATE NOWAIT", pgtype.UUID{Bytes: w, Valid: true})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("locking the reserving worker's row: %v, want lock_not_available (55P03)", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
}

// workerRow reads worker w's row.
func workerRow(t *testing.T, s *pg.Store, w ulid.ULID) store.Worker {
	t.Helper()
	var ws []store.Worker
	if err := s.InTx(t.Context(), func(tx store.Tx) (err error) { ws, err = tx.ListWorkers(t.Context()); return err }); err != nil {
		t.Fatal(err)
	}
	for _, row := range ws {
		if row.ID == w {
			return row
		}
	}
	t.Fatalf("no worker %s", w)
	return store.Worker{}
}

// TestResentPassKeepsItsStoreTime: a pass whose keeping completion is
// refused (a queue keeps no history) is sent again, at the store time the
// first send read from Options.Now: the clock is read once per pass, so
// a simulator that stamps the pass's commit with the time it read when
// the call began stamps the time the committed batch wrote.
func TestResentPassKeepsItsStoreTime(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var reads atomic.Int64
	s := pgtest.Open(t, func() time.Time { return base.Add(time.Duration(reads.Add(1)) * time.Second) })
	w := registerWorkers(t, s, 1)[0]
	insert(t, s, store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`{}`)})
	var running []store.Job
	quickly(t, s, "reserve, then no history for q", func(ctx context.Context, tx store.Tx) (err error) {
		if running, err = tx.Reserve(ctx, w, []string{"q"}, 1); err != nil {
			return err
		}
		return tx.SetQueueHistory(ctx, "q", false)
	})
	before := reads.Load()
	res, err := store.RunJobPass(t.Context(), s, store.JobPass{Worker: w, Heartbeat: true,
		Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{running[0].ID}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := reads.Load() - before; n != 1 {
		t.Errorf("the pass read the clock %d times, want once", n)
	}
	if want := base.Add(time.Duration(before+1) * time.Second); !res.Now.Equal(want) {
		t.Errorf("the pass's store time is %v, want the first read's %v", res.Now, want)
	}
	if seen := workerRow(t, s, w).LastSeenAt; !seen.Equal(res.Now) {
		t.Errorf("the heartbeat wrote %v, want the pass's store time %v", seen, res.Now)
	}
	if _, ok := getJob(t, s, running[0].ID); ok {
		t.Error("the completed job of a queue without history is still there: the pass was not sent again in full")
	}
}
