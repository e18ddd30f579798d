package interleave_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// crossWorld holds two rows that two actors update in opposite orders.
type crossWorld struct{ *world }

func newCrossWorld(t *testing.T) crossWorld {
	w := crossWorld{newWorld(t)}
	w.exec("CREATE TABLE {schema}.t (id int PRIMARY KEY, v int NOT NULL)")
	return w
}

// crossRun resets the rows and lets a update 1 then 2 while b updates 2
// then 1, each in one transaction.
func (w crossWorld) crossRun(seed uint64) (events []interleave.Event, errs map[string]error, v [2]int) {
	return w.crossRunWith(seed, interleave.Options{})
}

func (w crossWorld) crossRunWith(seed uint64, opts interleave.Options) (events []interleave.Event, errs map[string]error, v [2]int) {
	w.t.Helper()
	w.exec("DELETE FROM {schema}.t")
	w.exec("INSERT INTO {schema}.t VALUES (1, 0), (2, 0)")
	r := w.runWith(seed, opts, "a", "b")
	var errA, errB error
	update := func(label string, first, second int, err *error) {
		s := r.stores[label]
		r.ctl.Go(label, func() {
			*err = pgx.BeginFunc(context.Background(), s.Pool(), func(tx pgx.Tx) error {
				for _, id := range []int{first, second} {
					sql := fmt.Sprintf("UPDATE %s.t SET v = v + 1 WHERE id = %d", pgx.Identifier{w.schema}.Sanitize(), id)
					if _, err := tx.Exec(context.Background(), sql); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
	update("a", 1, 2, &errA)
	update("b", 2, 1, &errB)
	events = r.finish()
	rows, err := w.admin.Query(context.Background(), "SELECT v FROM "+pgx.Identifier{w.schema}.Sanitize()+".t ORDER BY id")
	if err != nil {
		w.t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil || len(got) != 2 {
		w.t.Fatalf("read the rows: %v %v", got, err)
	}
	return events, map[string]error{"a": errA, "b": errB}, [2]int{got[0], got[1]}
}

// TestDeadlockBrokenByController: when the two transactions wait on each
// other, the controller (not the server) cancels one, drawn from the seed,
// with the deadlock detector's SQLSTATE; the other commits.
func TestDeadlockBrokenByController(t *testing.T) {
	w := newCrossWorld(t)
	victims := map[string]int{}
	for seed := uint64(1); seed <= 16; seed++ {
		events, errs, v := w.crossRun(seed)
		cancels := slices.DeleteFunc(slices.Clone(events), func(e interleave.Event) bool { return e.Kind != interleave.Cancel })
		switch len(cancels) {
		case 0:
			if errs["a"] != nil || errs["b"] != nil || v != [2]int{2, 2} {
				t.Fatalf("seed %d: no deadlock, yet errors %v and rows %v\n%s", seed, errs, v, trace(events))
			}
		case 1:
			c := cancels[0]
			if !slices.Equal(c.On, []string{"a#0", "b#0"}) {
				t.Fatalf("seed %d: cycle %v, want a#0 and b#0\n%s", seed, c.On, trace(events))
			}
			victim, survivor := "a", "b"
			if c.Conn == "b#0" {
				victim, survivor = "b", "a"
			}
			var pgErr *pgconn.PgError
			if !errors.As(errs[victim], &pgErr) || pgErr.Code != "40P01" || pgErr.Message != "deadlock detected; victim of interleave" {
				t.Fatalf("seed %d: victim %s got %v, want the controller's deadlock error\n%s", seed, victim, errs[victim], trace(events))
			}
			if errs[survivor] != nil || v != [2]int{1, 1} {
				t.Fatalf("seed %d: survivor %s got %v, rows %v, want it committed alone\n%s", seed, survivor, errs[survivor], v, trace(events))
			}
			victims[victim]++
		default:
			t.Fatalf("seed %d: %d cancels\n%s", seed, len(cancels), trace(events))
		}
	}
	if victims["a"] == 0 || victims["b"] == 0 {
		t.Fatalf("victims over 16 seeds: %v; the seed should choose either", victims)
	}
	t.Logf("victims over 16 seeds: %v", victims)
}

// TestGatedSessionsLeaveDeadlocksToController: the server's own detector
// would only look after an hour.
func TestGatedSessionsLeaveDeadlocksToController(t *testing.T) {
	w := newWorld(t)
	r := w.run(1, "a")
	var timeout string
	if err := r.stores["a"].Pool().QueryRow(context.Background(), "SHOW deadlock_timeout").Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if timeout != "1h" {
		t.Fatalf("deadlock_timeout = %q on a gated session, want 1h", timeout)
	}
	r.finish()
}

// TestSameSeedSameInterleaving: a seed replays its interleaving, its
// deadlock victims and every answer exactly, on another schema too;
// different seeds differ.
func TestSameSeedSameInterleaving(t *testing.T) {
	w, elsewhere := newCrossWorld(t), newCrossWorld(t)
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 6; seed++ {
		first, errs1, v1 := w.crossRun(seed)
		again, errs2, v2 := elsewhere.crossRun(seed)
		if trace(first) != trace(again) || v1 != v2 || (errs1["a"] == nil) != (errs2["a"] == nil) {
			t.Fatalf("seed %d ran differently twice:\n%s\nthen:\n%s", seed, trace(first), trace(again))
		}
		distinct[trace(first)] = true
	}
	if len(distinct) < 2 {
		t.Fatal("six seeds gave one interleaving")
	}
}

// TestStoreSeesDeadlockVictimAsRetryable: two store transactions cancel
// the same two jobs in opposite orders. When they deadlock, the victim's
// InTx fails with store.ErrUnavailable, as for a deadlock the server found
// (the store retries those), and the other cancels both jobs.
func TestStoreSeesDeadlockVictimAsRetryable(t *testing.T) {
	w := newReserveWorld(t)
	deadlocks := 0
	for seed := uint64(1); seed <= 12; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		errs := r.inTx([]string{"a", "b"}, func(i int, ctx context.Context, tx store.Tx) error {
			if _, err := tx.CancelJob(ctx, w.jobs[i]); err != nil {
				return err
			}
			_, err := tx.CancelJob(ctx, w.jobs[1-i])
			return err
		})
		events := r.finish()
		i := index(events, 0, func(e interleave.Event) bool { return e.Kind == interleave.Cancel })
		if i < 0 {
			// One went first: the other finds a job already cancelled.
			if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), store.ErrConflict) {
				t.Fatalf("seed %d: without a deadlock, got %v; want one success and one conflict\n%s", seed, errs, trace(events))
			}
			continue
		}
		deadlocks++
		victim := 0
		if events[i].Conn == "b#0" {
			victim = 1
		}
		var pgErr *pgconn.PgError
		if !errors.Is(errs[victim], store.ErrUnavailable) || !errors.As(errs[victim], &pgErr) || pgErr.Code != "40P01" {
			t.Fatalf("seed %d: victim got %v, want ErrUnavailable from a deadlock\n%s", seed, errs[victim], trace(events))
		}
		if errs[1-victim] != nil {
			t.Fatalf("seed %d: survivor got %v\n%s", seed, errs[1-victim], trace(events))
		}
	}
	reached(t, deadlocks, 12, "two store transactions deadlocked")
}

// TestPCTReachesDeadlock: the PCT scheduler drives the controller as the
// uniform one does, and with depth 2 over the run's eight round trips it
// reaches the deadlock in some seeds.
func TestPCTReachesDeadlock(t *testing.T) {
	w := newCrossWorld(t)
	deadlocks := 0
	for seed := uint64(1); seed <= 8; seed++ {
		sched := interleave.PCT(clockrng.NewRand(seed).Child("pct"), 2, 8)
		events, _, _ := w.crossRunWith(seed, interleave.Options{Scheduler: sched})
		if len(kinds(events, interleave.Cancel)) > 0 {
			deadlocks++
		}
	}
	reached(t, deadlocks, 8, "PCT reached the deadlock")
}
