package engine

import (
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
)

// The leader claims a vacuum in its duties only once the dead rows reach
// the threshold, hands it to its driver once the duty transaction
// committed, claims none while it runs, and none before the interval has
// passed on store time since the last one, whoever recorded it.
func TestVacuumDutyOnlyWhenDue(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.VacuumDeadRows, cfg.VacuumInterval, cfg.VacuumTimeout = 4, 10*time.Second, 3*time.Minute
	rec := &recorder{}
	c, err := NewCore(e.mem, cfg, clockrng.NewRand(1), rec) // the mem store itself: it can vacuum
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(c)
	// duties ticks until the lease pass leads to duties, and returns the
	// actions that followed them.
	duties := func() []Action {
		t.Helper()
		e.advance(cfg.LeaderInterval)
		acts := p.Step(Input{Kind: InTimer, Timer: TimerPoll})
		for len(acts) > 0 && acts[len(acts)-1].Kind == ActCall {
			a := acts[len(acts)-1]
			acts = append(acts[:len(acts)-1], p.Step(p.Do(e.ctx, a, e.storeNow()))...)
		}
		return acts
	}
	vacuums := func(acts []Action) int {
		n := 0
		for _, a := range acts {
			if a.Kind == ActVacuum {
				n++
				if a.Timeout != cfg.VacuumTimeout {
					t.Fatalf("a vacuum handed over with the deadline %v, not VacuumTimeout %v", a.Timeout, cfg.VacuumTimeout)
				}
			}
		}
		return n
	}
	acts := p.Step(Input{Kind: InStarted})
	for len(acts) > 0 && acts[len(acts)-1].Kind == ActCall {
		a := acts[len(acts)-1]
		acts = append(acts[:len(acts)-1], p.Step(p.Do(e.ctx, a, e.storeNow()))...)
	}
	if vacuums(acts) != 0 || rec.count(EventVacuumClaimed) != 0 {
		t.Fatalf("a vacuum with no dead rows: %v", describe(acts))
	}
	e.enqueue("q", 2)
	if n := vacuums(duties()); n != 0 { // reserves 2 rows: 2 dead
		t.Fatalf("%d vacuums below the threshold", n)
	}
	finishAll(c, Succeed, "")
	acts = duties() // completes them (4 dead); the duties read them
	if vacuums(acts) != 1 || rec.count(EventVacuumClaimed) != 1 || rec.of(EventVacuumClaimed)[0].Count != 4 {
		t.Fatalf("at 4 dead rows: actions %v, claims %v", describe(acts), rec.of(EventVacuumClaimed))
	}
	claimed := rec.of(EventVacuumClaimed)[0].StoreTime
	if err := p.Vacuum(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.enqueue("q", 2) // 2 dead... and 2 more once completed, while the vacuum "runs"
	duties()
	finishAll(c, Succeed, "")
	e.advance(cfg.VacuumInterval)
	if n := vacuums(duties()); n != 0 || rec.count(EventVacuumClaimed) != 1 {
		t.Fatalf("claimed %d vacuums while one runs", n)
	}
	p.Step(Input{Kind: InVacuumEnded})
	var last store.Vacuum
	e.inTx(func(tx store.Tx) (err error) { last, err = tx.LastVacuum(e.ctx); return err })
	if !last.StartedAt.Equal(claimed) {
		t.Fatalf("recorded vacuum %+v, want started at %s", last, claimed)
	}
	// Another leader's record, just now: the interval runs from it.
	e.inTx(func(tx store.Tx) error { return tx.RecordVacuum(e.ctx, 99) })
	e.enqueue("q", 4)
	duties()
	finishAll(c, Succeed, "")
	if n := vacuums(duties()); n != 0 {
		t.Fatalf("claimed %d vacuums within the interval of another leader's", n)
	}
	e.advance(cfg.VacuumInterval)
	if n := vacuums(duties()); n != 1 || rec.count(EventVacuumClaimed) != 2 {
		t.Fatalf("claimed %d vacuums once the interval passed", n)
	}
}

// A duty left off, or a store that cannot vacuum, never claims one.
func TestVacuumDutyOff(t *testing.T) {
	cfg := testConfig()
	cfg.VacuumDeadRows = -1
	if err := cfg.Validate(); err == nil {
		t.Fatal("a negative VacuumDeadRows passed Validate")
	}
	cfg.VacuumDeadRows, cfg.VacuumInterval = 1, 0
	if err := cfg.Validate(); err == nil {
		t.Fatal("a vacuum duty without an interval passed Validate")
	}
	e := newEnv(t)
	cfg.VacuumInterval = time.Second
	c, rec := e.core(cfg, 1) // e.st hides the mem store's vacuum
	e.enqueue("q", 3)
	for range 5 {
		e.tick(c)
		finishAll(c, Succeed, "")
		e.advance(time.Second)
	}
	if n := rec.count(EventVacuumClaimed); n != 0 || c.vacuum != vacuumIdle {
		t.Fatalf("a store without a vacuum claimed %d", n)
	}
}
