package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// The vacuum duty (Config.VacuumDeadRows). Every reserved job leaves dead
// entries at the head of the reservation's index until a vacuum removes
// them, so without one the cost of a job grows with the jobs done since.
// The leader decides in its duty transaction, under the re-checked lease,
// whether the jobs table is due: at least VacuumInterval of store time
// since the last vacuum any leader recorded (the transaction's own time
// against the persisted row, so a new leader keeps its predecessor's
// interval), and at least VacuumDeadRows dead rows. It records the vacuum
// there; once that commits, the policy hands the VACUUM to its driver,
// which runs it outside any transaction (PostgreSQL refuses one inside)
// beside the runner's loop, so that it never holds up the job path or the
// lease renewal.

// vacuumState is where the core's own vacuum is.
type vacuumState uint8

const (
	vacuumIdle    vacuumState = iota
	vacuumDue                 // claimed by a committed duty transaction, not yet handed out
	vacuumRunning             // handed to the driver, not yet returned
)

// vacuumer returns the store's vacuum when the duty is on and the store
// has one.
func (c *Core) vacuumer() (store.Vacuumer, bool) {
	if c.cfg.VacuumDeadRows <= 0 {
		return nil, false
	}
	v, ok := c.st.(store.Vacuumer)
	return v, ok
}

// claimVacuum records a vacuum in the duty transaction tx at store time
// now if one is due, and reports whether it did. While its own vacuum
// runs the core claims none: a second VACUUM of the table would only wait
// for the first.
func (c *Core) claimVacuum(ctx context.Context, tx store.Tx, now time.Time) (bool, error) {
	if _, ok := c.vacuumer(); !ok || c.vacuum != vacuumIdle {
		return false, nil
	}
	last, err := tx.LastVacuum(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return false, fmt.Errorf("read the last vacuum: %w", err)
	case now.Sub(last.StartedAt) < c.cfg.VacuumInterval && !mutant.On(mutant.VacuumIgnoresInterval):
		return false, nil // a store clock that went back waits for it to catch up
	}
	dead, err := tx.DeadJobRows(ctx)
	if err != nil {
		return false, fmt.Errorf("count dead job rows: %w", err)
	}
	if dead < c.cfg.VacuumDeadRows {
		return false, nil
	}
	if err := tx.RecordVacuum(ctx, dead); err != nil {
		return false, err
	}
	e := c.note(EventVacuumClaimed, c.id, now)
	e.Count = int(dead)
	return true, nil
}

// startVacuum hands out the vacuum the last duties claimed, if any.
func (p *Policy) startVacuum(out []Action) []Action {
	if p.core.vacuum != vacuumDue {
		return out
	}
	p.core.vacuum = vacuumRunning
	p.core.emit(p.core.event(EventVacuumStarted, p.core.id))
	a := Action{Kind: ActVacuum}
	if !mutant.On(mutant.VacuumNoDeadline) {
		a.Timeout = p.core.cfg.VacuumTimeout
	}
	return append(out, a)
}

// vacuumEnded takes the return of the driver's vacuum.
func (p *Policy) vacuumEnded(err error) {
	if p.core.vacuum != vacuumRunning {
		panic(fmt.Sprintf("worker: runner policy got the end of a vacuum it did not start (state %d)", p.core.vacuum))
	}
	p.core.vacuum = vacuumIdle
	e := p.core.event(EventVacuumEnded, p.core.id)
	e.Err = err
	p.core.emit(e)
}

// Vacuum runs the vacuum of an ActVacuum. It touches none of the policy's
// or the core's state, so a driver may run it on a goroutine of its own
// while it steps the policy with other inputs.
func (p *Policy) Vacuum(ctx context.Context) error {
	v, ok := p.core.vacuumer()
	if !ok {
		return errors.New("worker: vacuum: the store cannot vacuum (store.Vacuumer)")
	}
	return v.VacuumJobs(ctx)
}
