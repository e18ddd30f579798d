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
// trip goes, and the faults that strike it.
type tripDraws struct {
	delays, faults *clockrng.Rand
}

func newTripDraws(master *clockrng.Rand) *tripDraws {
	return &tripDraws{delays: master.Child("trips/delay"), faults: master.Child("trips/fault")}
}

// delay draws how long a parked round trip waits before it goes: mostly a
// network's latency, sometimes long enough for another process's
// transactions to run meanwhile, and during chaos now and then longer than
// the lease (a process paused mid-transaction). After chaos, round trips
// go at once, so that quiescence settles within its bounds.
func (d *tripDraws) delay(s *sim, conn string) time.Duration {
	r := d.delays
	x := r.IntN(100)
	switch {
	case s.phase != chaos || x < 60:
		return r.DurationBetween(0, time.Millisecond)
	case x < 97 || actorLabel(conn) == "client":
		return r.DurationBetween(time.Millisecond, 300*time.Millisecond)
	default:
		return r.DurationBetween(300*time.Millisecond, s.sc.LeaseTTL.D()*3/2)
	}
}

// fault draws what strikes a process's round trip during chaos, at the
// rates of the scenario's store faults: its connection closed with it
// outstanding (a crash mid-transaction) at StoreBefore's, its server
// process terminated at StoreAbort's, and a COMMIT's answer lost (an
// ambiguous commit) at StoreAfter's.
func (d *tripDraws) fault(s *sim, conn string, commit bool) TripFault {
	if s.phase != chaos || actorLabel(conn) == "client" {
		return TripRelease
	}
	r := d.faults
	x := r.Float64()
	switch rate := func(k FaultKind) float64 {
		if !s.sc.On(k) {
			return 0
		}
		return s.sc.Rate(k) / 4 // per round trip, not per transaction
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
