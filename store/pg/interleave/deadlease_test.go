package interleave_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestDeclaredDeadWorkerTakesNoLease: a leader's transaction declares
// worker b dead while b takes the free lease in a transaction of its own.
// Whatever the order, b holds the lease only if it took it while live: a
// write after the leader's update waits for it and then finds b dead
// (found by simulate -store pg -interleave, seed 1289: a plain EXISTS read
// the row as it was before the leader's uncommitted update).
func TestDeclaredDeadWorkerTakesNoLease(t *testing.T) {
	w := newReserveWorld(t)
	waited := 0
	for seed := uint64(1); seed <= 16; seed++ {
		w.reset(seed)
		w.exec("DELETE FROM {schema}.leader")
		r := w.run(seed, "leader", "b")
		var errLeader, errB error
		var took bool
		w.goDeclareDead(r, "leader", w.workers[1], &errLeader)
		r.ctl.Go("b", func() {
			errB = r.stores["b"].InTx(context.Background(), func(tx store.Tx) (err error) {
				took, err = tx.TryAcquireLease(context.Background(), w.workers[1], 5*time.Second)
				return err
			})
		})
		events := r.finish()
		if errLeader != nil {
			t.Fatalf("seed %d: leader: %v\n%s", seed, errLeader, trace(events))
		}
		var lease store.Lease
		var dead bool
		err := w.plain.InTx(context.Background(), func(tx store.Tx) (err error) {
			if lease, err = tx.GetLease(context.Background()); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			workers, err := tx.ListWorkers(context.Background())
			for _, wk := range workers {
				dead = dead || (wk.ID == w.workers[1] && !wk.ShutdownAt.IsZero())
			}
			return err
		})
		if err != nil || !dead {
			t.Fatalf("seed %d: read back: %v, b shut down %v\n%s", seed, err, dead, trace(events))
		}
		// b may hold the lease only if it took it while it was live: its
		// write ran before the leader's update (which then waited for b).
		declared := index(events, 0, is(interleave.Done, "leader#0", "SET shutdown_at"))
		taken := index(events, 0, is(interleave.Done, "b#0", "INSERT INTO {schema}.leader"))
		if holds := lease.WorkerID == w.workers[1]; holds != (took && errB == nil) || (holds && taken > declared) {
			t.Fatalf("seed %d: b holds the lease %v (took %v, %v), its write answered at event %d, the declaration at %d\n%s",
				seed, holds, took, errB, taken, declared, trace(events))
		}
		if index(events, 0, func(e interleave.Event) bool { return e.Kind == interleave.Wait && e.Conn == "b#0" }) >= 0 {
			waited++
		}
	}
	reached(t, waited, 16, "b's take of the lease waited for the leader's declaration")
}
