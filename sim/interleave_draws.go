package sim

import (
	"strings"
	"time"

	"github.com/tickwork/tickwork/clockrng"
)

// actorLabel is the actor of a connection "label#n".
func actorLabel(conn string) string {
	label, _, _ := strings.Cut(conn, "#")
	return label
}

// tripDraws are an interleaved run's own draws, from children of the
// master seed that no in-memory run draws from: when each parked round
// trip goes, the faults that strike it, when the lease holder is asked to
// stop, and what becomes of a round trip paused past its call's deadline.
type tripDraws struct {
	delays, faults, stops, deadlines *clockrng.Rand
}

func newTripDraws(master *clockrng.Rand) *tripDraws {
	return &tripDraws{delays: master.Child("trips/delay"), faults: master.Child("trips/fault"), stops: master.Child("trips/stop"),
		deadlines: master.Child("trips/deadline")}
}

// drawLeaderStop schedules, in three seeds of four, a stop of whichever
// process holds the lease at a time drawn in the chaos phase's first half
// (evLeaderStop). The seed's own shutdowns come a few times a minute, too
// seldom for a chaos phase of seconds, and seldom to the holder: this one
// puts a resign beside the others' take-overs and renewals. The first
// half, because the holder begins to stop only once its store call
// returns, which a paused round trip may hold up for a lease and a half,
// and a stop that would begin after chaos does not.
func (d *tripDraws) drawLeaderStop(s *sim) {
	if !d.stops.Chance(0.75) {
		return
	}
	chaos := s.sc.Chaos.D()
	at := d.stops.DurationBetween(chaos/10, chaos/2).Truncate(time.Microsecond)
	s.at(at, &event{kind: evLeaderStop, w: -1})
}

// leaderStop asks the process that holds the lease, if one does, for a
// graceful shutdown, which begins once it is between store calls: at once,
// or as its call in progress ends (stopAsked). Queued behind that call
// instead, the request waited for the process's next idle moment, which in
// an interleaved run comes seldom: events of the same instant (a job's
// end) started another call first, and most requests came after chaos and
// were dropped.
func (s *sim) leaderStop() {
	p := s.workerOf(s.lastHolder)
	if p == nil || p.draining {
		return
	}
	s.tr.printf(s.now, p.name, "asked to stop: it holds the lease")
	if p.busy {
		p.stopAsked = true
		return
	}
	s.at(s.now, &event{kind: evShutdownNow, w: p.idx, inc: p.inc})
}

// delay draws how long a parked round trip waits before it goes: mostly a
// network's latency, sometimes long enough for another process's
// transactions to run meanwhile, and during chaos now and then longer than
// the lease (a process paused mid-transaction). After chaos, round trips
// go at once, so that quiescence settles within its bounds.
//
// The round trips of a transaction that renews, takes or gives up the
// lease or does the leader's duties are paused that long far more often
// (leaderPaused, resignPaused): a pause between such a transaction's read
// and its write lets the lease expire and pass to another process
// meanwhile, which is the race its statements' locks and WHERE clauses
// must win, and with three or more processes the others' lease ticks
// contend in that time too.
func (d *tripDraws) delay(s *sim, conn string) time.Duration {
	r := d.delays
	x := r.IntN(100)
	short, long := 60, 97
	switch k := s.leaderKind(conn); {
	case k&kindResign != 0:
		short, long = 100-2*resignPaused, 100-resignPaused
	case k != 0:
		short, long = 100-3*leaderPaused, 100-leaderPaused
	}
	switch {
	case s.phase != chaos || x < short:
		return r.DurationBetween(0, time.Millisecond)
	case x < long || actorLabel(conn) == "client":
		return r.DurationBetween(time.Millisecond, 300*time.Millisecond)
	default:
		return r.DurationBetween(300*time.Millisecond, s.sc.LeaseTTL.D()*3/2)
	}
}

// pastDeadline decides when a round trip goes whose drawn release comes
// after dl, the deadline of its process's call (proc.deadline: a call
// after the stop, given engine.ShutdownCallTimeout), and whether it is
// then severed, as the call's context closes the connection of a
// PostgreSQL call still out at its deadline. Left to go when drawn, a
// drain's tick outlasted its deadline and the drain deadline's cancel
// came after property 20's bound, which a runner never does (seed 131,
// -duration 5s). Severing every one instead timed most resigns out
// (their round trips are paused past the lease in resignPaused of a
// hundred), and with them the races those pauses are there to reach: so
// a round trip past a deadline still ahead is severed at it in
// deadlineTimeouts of a hundred, and otherwise goes at a time drawn
// before it. One past a deadline already gone is severed at once.
func (d *tripDraws) pastDeadline(now, dl time.Duration) (at time.Duration, timeout bool) {
	if dl <= now || d.deadlines.IntN(100) < deadlineTimeouts {
		return max(dl, now), true
	}
	return max(d.deadlines.DurationBetween(now, dl).Truncate(time.Microsecond), now), false
}

// deadlineTimeouts is how many in a hundred of the round trips drawn past
// a deadline still ahead are severed at it (tripDraws.pastDeadline).
const deadlineTimeouts = 25

// fault draws what strikes a process's round trip during chaos, at the
// rates of the scenario's store faults: its connection closed with it
// outstanding (a crash mid-transaction) at StoreBefore's, its server
// process terminated at StoreAbort's, and a commit's answer lost (a
// COMMIT's or a pipelined batch's Sync's: an ambiguous commit) at
// StoreAfter's.
func (d *tripDraws) fault(s *sim, conn string, commit bool) TripFault {
	if s.phase != chaos || actorLabel(conn) == "client" {
		return TripRelease
	}
	r := d.faults
	x := r.Float64()
	switch rate := func(k FaultKind) float64 {
		if !s.on(k) {
			return 0
		}
		return s.rate(k) / 4 // per round trip, not per transaction
	}; {
	case x < rate(StoreBefore):
		s.count(StoreBefore)
		s.res.Marks.set(MarkTripSevered)
		return TripSever
	case x < rate(StoreBefore)+rate(StoreAbort):
		s.count(StoreAbort)
		s.res.Marks.set(MarkTripTerminated)
		return TripTerminate
	case commit && x < rate(StoreBefore)+rate(StoreAbort)+4*rate(StoreAfter):
		s.count(StoreAfter)
		s.res.Marks.set(MarkCommitAnswerLost)
		return TripLoseAnswer
	}
	return TripRelease
}

// tripMarks notes the coverage marks of interleaving.
func (s *sim) tripMarks(st Settled) {
	if st.Overlap {
		s.res.Marks.set(MarkTxOverlap)
	}
	if len(st.Waits) > 0 {
		s.res.Marks.set(MarkLockWait)
	}
	if st.Deadlocks > 0 {
		s.res.Marks.set(MarkDeadlock)
	}
}

// oneLine puts a statement on one line of at most n bytes, for reports.
func oneLine(sql string, n int) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > n {
		sql = sql[:n] + "…"
	}
	return sql
}

// leaderPaused and resignPaused are how many in a hundred of the round
// trips of a lease or duty transaction, and of a resign, are paused up to
// past the lease during chaos (tripDraws.delay), against three of the
// others'; as many again (twice as many for the lease's and duties') wait
// up to 300 ms. A resign comes once in a process's life, so its pauses
// cost the run nothing.
const (
	leaderPaused = 15
	resignPaused = 40
)
