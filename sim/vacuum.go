package sim

import (
	"context"
	"errors"
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

// startVacuum carries out p's ActVacuum a. During chaos the half-open
// fault reaches it too (silentVacuum).
func (s *sim) startVacuum(p *proc, a engine.Action) {
	d := s.procRand(p, Vacuum).DurationBetween(time.Millisecond, 2*s.sc.LeaseTTL.D()).Truncate(time.Microsecond)
	s.count(Vacuum)
	if s.phase == chaos && s.on(HalfOpen) && p.silentVacuums.Chance(s.rate(HalfOpen)*vacuumSilenceShare) {
		s.count(HalfOpen)
		s.silentVacuum(p, a)
		return
	}
	p.vacuumErr = p.store.VacuumJobs(s.ctx)
	s.tr.printf(s.now, p.name, "vacuum for %v%s", d, s.errNote(p.vacuumErr))
	s.after(d, &event{kind: evVacuumDone, w: p.idx, inc: p.inc})
}

// vacuumSilenceShare scales the half-open kind's rate, drawn per
// transaction, for vacuums: a leader starts one vacuum for the many
// transactions of its interval, so at that rate few seeds would reach one.
const vacuumSilenceShare = 10

// silentVacuum is the half-open fault on a vacuum: half the time the
// VACUUM ran before the silence, and either way it hears nothing until the
// deadline the policy gave it (Config.VacuumTimeout, on the process's
// clock). A vacuum without a deadline would wait forever, and its leader
// never vacuum again: the run fails there.
func (s *sim) silentVacuum(p *proc, a engine.Action) {
	if p.silentVacuums.Chance(0.5) {
		_ = p.store.VacuumJobs(s.ctx)
		s.tr.printf(s.now, p.name, "vacuum: store silent after the vacuum (half-open)")
	} else {
		s.tr.printf(s.now, p.name, "vacuum: store silent before the vacuum (half-open)")
	}
	if a.Timeout == 0 {
		s.stop(nil, fmt.Errorf("%s's vacuum has no deadline: on a half-open connection it waits forever", p.name))
		return
	}
	p.vacuumErr = errVacuumHalfOpen
	s.after(p.clock.trueDelay(a.Timeout), &event{kind: evVacuumDone, w: p.idx, inc: p.inc})
}

// errVacuumHalfOpen is what a vacuum on a half-open connection returns
// at its deadline.
var errVacuumHalfOpen = fmt.Errorf("vacuum jobs: %w", errHalfOpenTimedOut)

// vacuumDone steps p with its vacuum's return.
func (s *sim) vacuumDone(p *proc) {
	err := p.vacuumErr
	p.vacuumErr = nil
	if errors.Is(err, errHalfOpen) {
		s.res.Marks.set(MarkVacuumHalfOpen)
	}
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
