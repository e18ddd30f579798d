package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// The vacuum duty under simulation. The policy's ActVacuum runs the
// store's VacuumJobs at once (the in-memory store removes the dead rows
// there were when it began, as PostgreSQL's VACUUM removes those no
// transaction can see) and returns after a drawn duration, during which
// the process goes on ticking: the duty must never hold up the job path
// or the lease renewal. A crash loses the vacuum's return with the
// incarnation.

// startVacuum carries out p's ActVacuum.
func (s *sim) startVacuum(p *proc) {
	p.vacuumErr = p.store.VacuumJobs(s.ctx)
	d := p.rnd[Vacuum].DurationBetween(time.Millisecond, 2*s.sc.LeaseTTL.D()).Truncate(time.Microsecond)
	s.count(Vacuum)
	s.tr.printf(s.now, p.name, "vacuum for %v%s", d, s.errNote(p.vacuumErr))
	s.after(d, &event{kind: evVacuumDone, w: p.idx, inc: p.inc})
}

// vacuumDone steps p with its vacuum's return.
func (s *sim) vacuumDone(p *proc) {
	err := p.vacuumErr
	p.vacuumErr = nil
	s.tr.printf(s.now, p.name, "vacuum returns%s", s.errNote(err))
	s.step(p, engine.Input{Kind: engine.InVacuumEnded, Err: err})
}

func (s *sim) errNote(err error) string {
	if err == nil {
		return ""
	}
	return " err " + s.errText(err)
}

// VacuumJobs passes the vacuum on to the backend; it fails while the
// database is out.
func (f *faultStore) VacuumJobs(ctx context.Context) error {
	if f.s.phase == chaos && f.s.inOutage() {
		return fmt.Errorf("vacuum jobs: %w", errOutage)
	}
	v, ok := f.s.be.(store.Vacuumer)
	if !ok {
		return fmt.Errorf("vacuum jobs: backend %T cannot vacuum", f.s.be)
	}
	return v.VacuumJobs(ctx)
}

var _ store.Vacuumer = (*faultStore)(nil)

// drawVacuumInterval draws the vacuum duty's interval from a source of its
// own, so that seeds without the duty draw as before: from shorter than a
// leader pass (every pass may claim) to several seconds.
func drawVacuumInterval(seed uint64) Dur {
	r := clockrng.NewRand(seed).Child("vacuum")
	return Dur(r.DurationBetween(100*time.Millisecond, 8*time.Second).Truncate(time.Millisecond))
}

// VacuumDeadRows is the vacuum duty's threshold in force: 0 (off) unless
// its kind is on.
func (s *Scenario) VacuumDeadRows() int64 {
	if !s.On(Vacuum) {
		return 0
	}
	return max(int64(s.Rate(Vacuum)), 1)
}
