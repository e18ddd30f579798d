package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

var errHalfOpen = errors.New("simulated half-open connection: no answer until the call's deadline")

// errHalfOpenTimedOut is what a half-open call returns at its deadline.
var errHalfOpenTimedOut = fmt.Errorf("%w: %w", errHalfOpen, errTimedOut)

// halfOpen is the half-open fault: the connection goes silent without
// closing, so the call hears nothing until the deadline the policy gave it
// (engine.Action.Timeout, on the process's clock) ends its context. Half
// the time the transaction reached the server and committed before the
// silence, so its caller cannot know whether it did. A call without a deadline would wait
// forever: the run fails there.
func (f *faultStore) halfOpen(ctx context.Context, fn func(store.Tx) error) error {
	s, p := f.s, f.p
	if s.procRand(p, HalfOpen).Chance(0.5) {
		f.fn, f.abort = fn, false
		err := s.procTx(ctx, p, f.body)
		f.fn = nil
		if err != nil {
			return err
		}
		s.tr.printf(s.now, p.name, "store silent after the commit (half-open)")
	} else {
		s.tr.printf(s.now, p.name, "store silent before the transaction (half-open)")
	}
	if p.callDeadline == 0 {
		err := fmt.Errorf("%s's call (kind %d) has no deadline: on a half-open connection it waits forever", p.name, p.act.Call)
		s.stop(nil, err)
		return errEnded
	}
	if wait := p.callDeadline - s.now; wait > 0 && !s.park(p, wait) {
		return errEnded
	}
	s.res.Marks.set(MarkHalfOpen)
	return errHalfOpenTimedOut
}

// drawCallTimeout draws the call deadline of a seed with half-open calls,
// from a quarter of the dead threshold to twice it: a call that outlasts
// the threshold returns to a worker whose view of its jobs is stale.
func drawCallTimeout(seed uint64, dead time.Duration) Dur {
	r := clockrng.NewRand(seed).Child("call-timeout")
	return Dur(r.DurationBetween(dead/4, 2*dead).Truncate(time.Millisecond))
}
