package interleave_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestRivalWaitersLeaveOne: h holds an exclusive advisory lock while a and
// b ask for it shared, which the server would grant to both at once when h
// commits. Whenever both come to wait on h, the controller cancels the
// later one (b) as a deadlock victim, so that h's commit wakes a single
// waiter; the same seed gives the same events.
func TestRivalWaitersLeaveOne(t *testing.T) {
	long.Test(t, "24 interleaved seeds")
	w := newWorld(t)
	run := func(seed uint64) ([]interleave.Event, map[string]error) {
		r := w.run(seed, "a", "b", "h")
		errs := map[string]error{}
		lock := func(label, sql string) {
			s := r.stores[label]
			r.ctl.Go(label, func() {
				errs[label] = pgx.BeginFunc(context.Background(), s.Pool(), func(tx pgx.Tx) error {
					if _, err := tx.Exec(context.Background(), sql); err != nil {
						return err
					}
					_, err := tx.Exec(context.Background(), "SELECT 1")
					return err
				})
			})
		}
		lock("h", "SELECT pg_advisory_xact_lock(4242)")
		lock("a", "SELECT pg_advisory_xact_lock_shared(4242)")
		lock("b", "SELECT pg_advisory_xact_lock_shared(4242)")
		return r.finish(), errs
	}
	rivals := 0
	for seed := uint64(1); seed <= 24; seed++ {
		events, errs := run(seed)
		if again, _ := run(seed); trace(again) != trace(events) {
			t.Fatalf("seed %d: two runs differ:\n%s\nthen\n%s", seed, trace(events), trace(again))
		}
		cancelled := slices.ContainsFunc(events, func(e interleave.Event) bool {
			return e.Kind == interleave.Rival && e.Conn == "b#0" && slices.Equal(e.On, []string{"a#0", "h#0"})
		})
		var pgErr *pgconn.PgError
		if lost := errors.As(errs["b"], &pgErr) && pgErr.Code == "40P01"; lost != cancelled {
			t.Fatalf("seed %d: b cancelled as a rival %v, but its error is %v\n%s", seed, cancelled, errs["b"], trace(events))
		}
		if errs["a"] != nil || errs["h"] != nil {
			t.Fatalf("seed %d: a %v, h %v\n%s", seed, errs["a"], errs["h"], trace(events))
		}
		if cancelled {
			rivals++
		}
	}
	reached(t, rivals, 24, "a and b both waited on h, and b was cancelled")
}
