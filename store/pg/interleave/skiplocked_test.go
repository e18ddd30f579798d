package interleave_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// reserveWorld has two live workers and two available jobs, reset for
// every seed.
type reserveWorld struct {
	*world
	workers [2]ulid.ULID
	jobs    [2]ulid.ULID
	oldest  ulid.ULID // the job a lock of the lowest id takes
	plain   *pg.Store // ungated
}

func newReserveWorld(t *testing.T) *reserveWorld {
	w := &reserveWorld{world: newWorld(t)}
	var err error
	if w.plain, err = pg.Open(context.Background(), w.url, pg.Options{Schema: w.schema}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.plain.Close)
	return w
}

func (w *reserveWorld) reset(seed uint64) {
	w.t.Helper()
	w.exec("DELETE FROM {schema}.jobs")
	w.exec("DELETE FROM {schema}.workers")
	r := clockrng.NewRand(seed).Child("workers")
	at := clockrng.NewMock().Now()
	err := w.plain.InTx(context.Background(), func(tx store.Tx) error {
		for i := range w.workers {
			w.workers[i] = clockrng.NewULID(at, r)
			if err := tx.RegisterWorker(context.Background(), w.workers[i]); err != nil {
				return err
			}
		}
		jobs := newJobs(seed, 2)
		w.jobs = [2]ulid.ULID{jobs[0].ID, jobs[1].ID}
		w.oldest = jobs[0].ID
		if jobs[1].ID.Compare(w.oldest) < 0 {
			w.oldest = jobs[1].ID
		}
		_, err := tx.InsertJobs(context.Background(), jobs)
		return err
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// plainRunning counts the running jobs.
func (w *reserveWorld) plainRunning() (int, error) {
	var jobs []store.Job
	err := w.plain.InTx(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.ListJobs(context.Background(), store.JobFilter{Status: store.Running})
		return err
	})
	return len(jobs), err
}

// reserveInOpenTx is actor a: it reserves one job and, before committing,
// reads it back, so that its row lock is held across a round trip.
func reserveInOpenTx(s *pg.Store, worker ulid.ULID, got *[]store.Job) func() error {
	return func() error {
		ctx := context.Background()
		return s.InTx(ctx, func(tx store.Tx) error {
			jobs, err := tx.Reserve(ctx, worker, []string{"q"}, 1)
			if err != nil || len(jobs) == 0 {
				return fmt.Errorf("reserved %d: %w", len(jobs), err)
			}
			*got = jobs
			_, err = tx.GetJob(ctx, jobs[0].ID)
			return err
		})
	}
}

// reserveRace is what the two actors of startReserveRace got.
type reserveRace struct {
	gotA, gotB []store.Job
	errA, errB error
}

// startReserveRace starts actor a reserving one job in a transaction it
// keeps open across a read (reserveInOpenTx), and actor b reserving one.
// The results are there once the run finished.
func (w *reserveWorld) startReserveRace(r *run) *reserveRace {
	res := &reserveRace{}
	r.ctl.Go("a", func() { res.errA = reserveInOpenTx(r.stores["a"], w.workers[0], &res.gotA)() })
	r.ctl.Go("b", func() {
		ctx := context.Background()
		res.errB = r.stores["b"].InTx(ctx, func(tx store.Tx) (err error) {
			res.gotB, err = tx.Reserve(ctx, w.workers[1], []string{"q"}, 1)
			return err
		})
	})
	return res
}

// heldBetween reports whether b's round trip containing sql was released
// while a held the row it reserved: after a's reservation was answered and
// before a's commit was released.
func heldBetween(events []interleave.Event, sql string) bool {
	reserved := index(events, 0, is(interleave.Done, "a#0", "SKIP LOCKED"))
	commit := index(events, reserved, is(interleave.Release, "a#0", "commit"))
	other := index(events, reserved, is(interleave.Release, "b#0", sql))
	return reserved >= 0 && other >= 0 && other < commit
}

// TestReservationSkipsLockedRows: while one worker's transaction holds the
// row it reserved, another worker's reservation does not wait for it: it
// takes the other job. The controller would see a wait (next test).
func TestReservationSkipsLockedRows(t *testing.T) {
	long.Test(t, "16 interleaved seeds of two reservations")
	w := newReserveWorld(t)
	overlapped := 0
	for seed := uint64(1); seed <= 16; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		race := w.startReserveRace(r)
		events := r.finish()
		gotA, gotB, errA, errB := race.gotA, race.gotB, race.errA, race.errB
		if errA != nil || errB != nil || len(gotB) != 1 || gotA[0].ID == gotB[0].ID {
			t.Fatalf("seed %d: a %v (%v), b %v (%v): want one job each\n%s", seed, ids(gotA), errA, ids(gotB), errB, trace(events))
		}
		if waits := kinds(events, interleave.Wait); len(waits) > 0 || len(props.ReservationWaits(lockWaits(events), locksJobRows)) > 0 {
			t.Fatalf("seed %d: a reservation waited: %v\n%s", seed, waits, trace(events))
		}
		if heldBetween(events, "SKIP LOCKED") {
			overlapped++
		}
	}
	reached(t, overlapped, 16, "b reserved while a held a row")
}

// TestLockWithoutSkipLockedIsSeenWaiting: a statement that locks the
// oldest job without SKIP LOCKED, as a reservation would if it lost the
// clause, is held by the server while a holds that row; the controller
// sees it waiting on a, parks it, lets a go on, and it completes once a
// commits.
func TestLockWithoutSkipLockedIsSeenWaiting(t *testing.T) {
	w := newReserveWorld(t)
	const lockOldest = "ORDER BY id LIMIT 1 FOR UPDATE"
	held := 0
	for seed := uint64(1); seed <= 10; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		var gotA []store.Job
		var errA, errB error
		r.ctl.Go("a", func() { errA = reserveInOpenTx(r.stores["a"], w.workers[0], &gotA)() })
		r.ctl.Go("b", func() {
			errB = pgx.BeginFunc(context.Background(), r.stores["b"].Pool(), func(tx pgx.Tx) error {
				_, err := tx.Exec(context.Background(), "SELECT id FROM "+pgx.Identifier{w.schema}.Sanitize()+".jobs "+lockOldest)
				return err
			})
		})
		events := r.finish()
		if errA != nil || errB != nil {
			t.Fatalf("seed %d: a %v, b %v\n%s", seed, errA, errB, trace(events))
		}
		waited := slices.ContainsFunc(events, func(e interleave.Event) bool {
			return e.Kind == interleave.Wait && e.Conn == "b#0" && slices.Equal(e.On, []string{"a#0"}) &&
				strings.HasSuffix(e.Waiting, lockOldest)
		})
		// b waits exactly when it asked for the row while a held it (a holds
		// the oldest unless b locked it first, and then a skips it).
		if want := heldBetween(events, lockOldest) && gotA[0].ID == w.oldest; waited != want {
			t.Fatalf("seed %d: b waited on a: %v, want %v\n%s", seed, waited, want, trace(events))
		}
		if bad := props.ReservationWaits(lockWaits(events), locksJobRows); (len(bad) > 0) != waited {
			t.Fatalf("seed %d: props found %v, want a wait reported exactly when b waited (%v)", seed, bad, waited)
		}
		if slices.ContainsFunc(events, func(e interleave.Event) bool { return e.Kind == interleave.Wait && e.Conn == "a#0" }) {
			t.Fatalf("seed %d: the reservation of a waited\n%s", seed, trace(events))
		}
		if waited {
			held++
		}
	}
	reached(t, held, 10, "the lock without SKIP LOCKED waited on a")
}

func ids(jobs []store.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.ID.String())
	}
	return out
}

func kinds(events []interleave.Event, k interleave.Kind) []string {
	var out []string
	for _, e := range events {
		if e.Kind == k {
			out = append(out, e.String())
		}
	}
	return out
}

// goDeclareDead starts, as actor label, a leader's transaction that
// declares worker dead and holds its row for one more statement, as the
// rescue duty does; *errp is its error once the run has settled.
func (w *reserveWorld) goDeclareDead(r *run, label string, worker ulid.ULID, errp *error) {
	r.ctl.Go(label, func() {
		*errp = pgx.BeginFunc(context.Background(), r.stores[label].Pool(), func(tx pgx.Tx) error {
			_, err := tx.Exec(context.Background(), "UPDATE "+pgx.Identifier{w.schema}.Sanitize()+".workers SET shutdown_at = now() WHERE id = $1", pgtype.UUID{Bytes: worker, Valid: true})
			if err == nil {
				_, err = tx.Exec(context.Background(), "SELECT 1") // more duties, the row still held
			}
			return err
		})
	})
}
