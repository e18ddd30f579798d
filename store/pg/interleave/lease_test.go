package interleave_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestLeaseHasOneHolderUnderInterleaving: two workers try to take the free
// lease in overlapping transactions (each reads the lease back before it
// commits); exactly one gets it, whichever order the seed gives, and the
// loser is neither failed nor told it leads.
func TestLeaseHasOneHolderUnderInterleaving(t *testing.T) {
	w := newReserveWorld(t)
	waits := 0
	for seed := uint64(1); seed <= 12; seed++ {
		w.reset(seed)
		w.exec("DELETE FROM {schema}.leader")
		r := w.run(seed, "a", "b")
		var got [2]bool
		errs := r.inTx([]string{"a", "b"}, func(i int, ctx context.Context, tx store.Tx) (err error) {
			if got[i], err = tx.TryAcquireLease(ctx, w.workers[i], 5*time.Second); err != nil {
				return err
			}
			_, err = tx.GetLease(ctx)
			return err
		})
		events := r.finish()
		if errs[0] != nil || errs[1] != nil || got[0] == got[1] {
			t.Fatalf("seed %d: a %v (%v), b %v (%v): want exactly one leader\n%s", seed, got[0], errs[0], got[1], errs[1], trace(events))
		}
		var lease store.Lease
		err := w.plain.InTx(context.Background(), func(tx store.Tx) (err error) { lease, err = tx.GetLease(context.Background()); return err })
		if winner := w.workers[slices.Index(got[:], true)]; err != nil || lease.WorkerID != winner {
			t.Fatalf("seed %d: lease %v (%v), want held by %v\n%s", seed, lease, err, winner, trace(events))
		}
		if len(kinds(events, interleave.Wait)) > 0 {
			waits++
		}
	}
	reached(t, waits, 12, "a take of the lease waited on the other's")
}

// TestJobPassIsOneRoundTrip: the job pass, a pipelined batch, is released
// as one round trip, so other workers' statements come before or after it,
// never between its statements; two workers' passes take different jobs.
func TestJobPassIsOneRoundTrip(t *testing.T) {
	w := newReserveWorld(t)
	for seed := uint64(1); seed <= 6; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		var res [2]store.JobPassResult
		var errs [2]error
		for i, l := range []string{"a", "b"} {
			s := r.stores[l]
			r.ctl.Go(l, func() {
				res[i], errs[i] = store.RunJobPass(context.Background(), s,
					store.JobPass{Worker: w.workers[i], Heartbeat: true, Queues: []string{"q"}, Limit: 1})
			})
		}
		events := r.finish()
		if errs[0] != nil || errs[1] != nil || len(res[0].Reserved) != 1 || len(res[1].Reserved) != 1 ||
			res[0].Reserved[0].ID == res[1].Reserved[0].ID {
			t.Fatalf("seed %d: passes %+v %v: want one job each\n%s", seed, res, errs, trace(events))
		}
		for _, conn := range []string{"a#0", "b#0"} {
			i := index(events, 0, is(interleave.Release, conn, "SKIP LOCKED"))
			if i < 0 || len(events[i].Statements) < 3 || index(events, i+1, is(interleave.Release, conn, "SKIP LOCKED")) >= 0 {
				t.Fatalf("seed %d: %s's pass is not one round trip of its statements\n%s", seed, conn, trace(events))
			}
		}
	}
}
