package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
)

// actor is one label's store as the simulator drives it.
type actor struct {
	label string
	st    store.Store
	err   error
	done  bool      // its transaction returned (written before the goroutine ends)
	now   time.Time // its transaction's store time
	// released: the transaction released the lease, a stepdown no row shows.
	released bool
	open     bool       // a transaction of interleavedTx is under way
	kind     leaderKind // what it asked of the lease so far
	// timedOut: its process's call reached its deadline with a round trip
	// parked, and the round trip was severed (tripSlot.timeout).
	timedOut bool
}

// ilState is the simulator's side of an interleaved run.
type ilState struct {
	il     Interleaver
	now    atomic.Int64 // the simulator's now (ns since Epoch) as the actors' stores read it
	actors map[string]*actor
	sched  map[string]tripSlot // parked connections and their release events
	gen    uint64
	trips  *tripDraws
}

// tripSlot is the release scheduled for a parked round trip.
type tripSlot struct {
	at     time.Duration
	gen    uint64
	commit bool // the round trip commits
	// timeout: at is the deadline of its process's call, which came
	// before the release drawn for it, and the round trip is severed
	// there (tripDraws.pastDeadline).
	timeout bool
}

// interleaving reports whether the run interleaves transactions.
func (s *sim) interleaving() bool { return s.il != nil }

// actorOf returns label's actor, making its store on first use.
func (s *sim) actorOf(label string) *actor {
	a := s.il.actors[label]
	if a == nil {
		a = &actor{label: label, st: s.il.il.Store(label)}
		s.il.actors[label] = a
	}
	return a
}

// actorsNow is the simulator's now as the actors' stores read it
// (pg.Options.Now): it moves only between settles, while no actor runs.
func (s *sim) actorsNow() time.Time {
	return s.sc.start().Add(time.Duration(s.il.now.Load()))
}

// interleavedTx runs fn as a transaction of label (p's name, or "client"
// with p nil) on its gated store; see interleaved.
func (s *sim) interleavedTx(ctx context.Context, p *proc, label string, fn func(store.Tx) error) error {
	dead := s.be.(*diffBackend).dead
	return s.interleaved(p, label, func(a *actor) error {
		return a.st.InTx(ctx, func(tx store.Tx) error {
			now, err := tx.Now(ctx)
			if err != nil {
				return err
			}
			a.now = now
			rec := &releaseRecorder{Tx: tx, dead: dead}
			err = fn(leaderRecorder{rec, &a.kind})
			a.released = rec.released
			return err
		})
	})
}

// interleavedPass runs job pass jp of process p as its gated store's own
// pipelined batch, one round trip that commits at its Sync. The commit is
// stamped with the store time the pass reads from actorsNow when it
// begins, which is the simulator's now here: no settle comes between, and
// a pass sent again after a refusal keeps it (store/pg's runJobPass).
func (s *sim) interleavedPass(ctx context.Context, p *proc, jp store.JobPass) (store.JobPassResult, error) {
	var res store.JobPassResult
	a := s.actorOf(p.name)
	a.now = s.actorsNow().Truncate(time.Microsecond).UTC()
	err := s.interleaved(p, p.name, func(a *actor) (err error) {
		res, err = a.st.(store.JobPasser).RunJobPass(ctx, jp)
		return err
	})
	if err == nil && !res.Now.Equal(a.now) {
		s.stop(nil, fmt.Errorf("seed %d: %s's job pass ran at store time %v, its commit was stamped %v",
			s.sc.Seed, p.name, res.Now, a.now))
		return res, errEnded
	}
	return res, err
}

// interleaved runs tx, a transaction or a pass of label (p's name, or
// "client" with p nil), on label's gated store and returns once it has:
// a process's call parks on its coroutine until then, while the other
// processes go on; a client's transaction (or a call outside a
// coroutine) releases round trips itself, in the order they were
// scheduled.
func (s *sim) interleaved(p *proc, label string, tx func(*actor) error) error {
	a := s.actorOf(label)
	a.done, a.err, a.released, a.kind, a.timedOut = false, nil, false, 0, false
	a.open = true
	defer func() { a.open = false }()
	s.il.il.Go(label, func() {
		a.err = tx(a)
		a.done = true
	})
	s.settleTrips()
	for !a.done && !s.stopped {
		if p != nil && p.inCall {
			if !p.yield(waitTx) {
				break
			}
			continue
		}
		if !s.releaseNextFor(label) {
			break
		}
	}
	if !a.done {
		s.drainTrips()
		return errEnded
	}
	if a.timedOut {
		s.tr.printf(s.now, label, "store call timed out")
		return errTimedOut
	}
	return a.err
}

// waitTx is what a coroutine yields while its transaction runs on the
// database: it is resumed when a settle finds the transaction returned.
const waitTx = time.Duration(-2)

// releaseNextFor releases label's parked round trip or, while it waits on
// a lock, the one scheduled earliest; false when nothing can go.
func (s *sim) releaseNextFor(label string) bool {
	conns := slices.Sorted(maps.Keys(s.il.sched))
	best := ""
	for _, c := range conns {
		if actorLabel(c) == label {
			best = c
			break
		}
		if best == "" || s.il.sched[c].at < s.il.sched[best].at ||
			(s.il.sched[c].at == s.il.sched[best].at && s.il.sched[c].gen < s.il.sched[best].gen) {
			best = c
		}
	}
	if best == "" {
		s.stop(nil, fmt.Errorf("seed %d: the transaction of %s waits and no round trip is parked", s.sc.Seed, label))
		return false
	}
	s.releaseTrip(best)
	return true
}

// trip is the evTrip event: the round trip parked on e.conn goes now,
// unless it went earlier (a client released it while it waited).
func (s *sim) trip(e *event) {
	slot, ok := s.il.sched[e.conn]
	if !ok || slot.gen != e.gen {
		return
	}
	s.releaseTrip(e.conn)
}

// releaseTrip releases conn's round trip, with a fault drawn from the
// seed, and settles.
func (s *sim) releaseTrip(conn string) {
	slot := s.il.sched[conn]
	delete(s.il.sched, conn)
	var f TripFault
	if slot.timeout && s.now >= slot.at {
		f = TripSever
		s.il.actors[actorLabel(conn)].timedOut = true
	} else {
		f = s.il.trips.fault(s, conn, slot.commit)
	}
	if err := s.il.il.Release(conn, f); err != nil {
		s.stop(nil, err)
		return
	}
	s.settleTrips()
}

// settleTrips waits for the interleaver to settle and carries out what it
// saw: trace lines, commits, lock waits, releases to schedule, processes
// whose transaction returned.
func (s *sim) settleTrips() {
	st, err := s.il.il.Settle()
	if err != nil {
		s.stop(nil, err)
		return
	}
	for _, l := range st.Lines {
		s.tr.printf(s.now, "pg", "%s", l)
	}
	s.tripMarks(st)
	if len(st.Ended) > 0 {
		s.observeEnded(st.Ended)
	}
	if bad := props.ReservationWaits(st.Waits, s.il.il.Reserves); len(bad) > 0 {
		s.stop(&props.Violation{Property: props.ReservationLockWait, Index: int(s.histSeq), Seq: s.histSeq, Time: s.storeNow(),
			Message: fmt.Sprintf("a reservation of %s waited on the locks of %s: %s", bad[0].Conn, strings.Join(bad[0].On, ","), oneLine(bad[0].Statement, 100))}, nil)
		return
	}
	for _, t := range st.Pending {
		if _, ok := s.il.sched[t.Conn]; ok {
			continue
		}
		s.il.gen++
		at := (s.now + s.il.trips.delay(s, t.Conn)).Truncate(time.Microsecond)
		timeout := false
		if dl := s.tripDeadline(t.Conn); dl > 0 && at > dl {
			at, timeout = s.il.trips.pastDeadline(s.now, dl)
		}
		s.il.sched[t.Conn] = tripSlot{at: at, gen: s.il.gen, commit: t.Commit, timeout: timeout}
		s.at(at, &event{kind: evTrip, w: -1, conn: t.Conn, gen: s.il.gen})
	}
	for _, p := range s.procs {
		if a := s.il.actors[p.name]; a != nil && a.done && p.busy && p.waitingTx {
			p.waitingTx = false
			s.at(s.now, &event{kind: evResume, w: p.idx, inc: p.inc})
		}
	}
}

// tripDeadline is when the call of the process whose connection conn is
// gives its round trips up (proc.deadline, as on store latency), or 0.
func (s *sim) tripDeadline(conn string) time.Duration {
	if p := s.procNamed(actorLabel(conn)); p != nil && p.busy && p.deadline > 0 {
		return p.deadline.Truncate(time.Microsecond)
	}
	return 0
}

// procNamed is the process named label (an actor's label), nil for the
// client's.
func (s *sim) procNamed(label string) *proc {
	for _, p := range s.procs {
		if p.name == label {
			return p
		}
	}
	return nil
}

// observeEnded reads the rows back after a transaction ended and records
// what it committed, as the transaction of the actor whose connection it
// was.
func (s *sim) observeEnded(ended []string) {
	a := s.actorOf(actorLabel(ended[0]))
	c, changed, err := s.be.(*diffBackend).observe(s.ctx, a.now, a.released && a.err == nil)
	if err != nil {
		s.stop(nil, err)
		return
	}
	if !changed {
		return
	}
	if len(ended) > 1 {
		s.stop(nil, fmt.Errorf("seed %d: the transactions of %v ended in one step: their commits cannot be told apart", s.sc.Seed, ended))
		return
	}
	s.leaseMarks(a, c.Lease)
	s.commit(s.procNamed(a.label), &c)
}

// drainTrips ends every actor's work: the run is over.
func (s *sim) drainTrips() {
	if s.il == nil {
		return
	}
	if err := s.il.il.Drain(); err != nil && s.res.Err == nil {
		s.res.Err = err
	}
	clear(s.il.sched)
}

// storeTx runs a client's transaction: on the Backend, or as actor
// "client" when interleaving, where it may lose a deadlock (rolled back)
// and then tries again, as a client would.
func (s *sim) storeTx(fn func(store.Tx) error) error {
	if !s.interleaving() {
		err := s.be.InTx(s.ctx, fn)
		s.takeCommits(nil)
		return err
	}
	var err error
	for range clientTries {
		if err = s.interleavedTx(s.ctx, nil, "client", fn); !errors.Is(err, store.ErrUnavailable) || s.stopped {
			return err
		}
		s.tr.printf(s.now, "client", "transaction failed, tried again: %s", s.errText(err))
	}
	return err
}

// clientTries bounds a client transaction's tries when it keeps losing
// deadlocks.
const clientTries = 5

// procTx runs fn as a transaction of process p: on the Backend, or on p's
// gated store when interleaving.
func (s *sim) procTx(ctx context.Context, p *proc, fn func(store.Tx) error) error {
	if s.interleaving() {
		return s.interleavedTx(ctx, p, p.name, fn)
	}
	err := s.be.InTx(ctx, fn)
	s.takeCommits(p)
	return err
}
