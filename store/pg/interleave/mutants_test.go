//go:build mutants

package interleave_test

import (
	"testing"

	"github.com/tickwork/tickwork/internal/long"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/interleave"
)

// TestReservationWithoutSkipLockedIsCaught plants pg-no-skip-locked: the
// store's own reservation, released while another transaction holds the
// row it wants first, is seen waiting, and props.ReservationWaits with
// pg.IsReservation reports exactly those waits, as the interleaved
// simulation does.
func TestReservationWithoutSkipLockedIsCaught(t *testing.T) {
	long.Test(t, "interleaves seeds until the planted bug is caught")
	if err := mutant.Select(mutant.PGNoSkipLocked); err != nil {
		t.Fatal(err)
	}
	defer mutant.Select("")
	w := newReserveWorld(t)
	caught := 0
	for seed := uint64(1); seed <= 16; seed++ {
		w.reset(seed)
		r := w.run(seed, "a", "b")
		race := w.startReserveRace(r)
		events := r.finish()
		if race.errA != nil || race.errB != nil {
			t.Fatalf("seed %d: a %v, b %v\n%s", seed, race.errA, race.errB, trace(events))
		}
		held := reservedWhileHeld(events, "a#0", "b#0") || reservedWhileHeld(events, "b#0", "a#0")
		bad := props.ReservationWaits(lockWaits(events), pg.IsReservation)
		if held != (len(bad) > 0) {
			t.Fatalf("seed %d: one reserved while the other held its row: %v; reservation waits found: %v\n%s", seed, held, bad, trace(events))
		}
		if held {
			caught++
		}
	}
	reached(t, caught, 16, "the reservation without SKIP LOCKED waited on the other")
}

// reservedWhileHeld reports whether other's reservation was released
// after holder's was answered and before holder's commit was released.
func reservedWhileHeld(events []interleave.Event, holder, other string) bool {
	const reserve = "picked AS MATERIALIZED"
	reserved := index(events, 0, is(interleave.Done, holder, reserve))
	commit := index(events, reserved, is(interleave.Release, holder, "commit"))
	next := index(events, reserved, is(interleave.Release, other, reserve))
	return reserved >= 0 && next >= 0 && next < commit
}
