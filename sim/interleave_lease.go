package sim

import (
	"context"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// leaderKind is what an actor's open transaction asked of the lease so
// far: its round trips are drawn as the leader's (tripDraws.delay), and a
// change of the lease committed beside it marks the race it took part in
// (leaseMarks).
type leaderKind uint8

const (
	// kindLease: ExpireLease or TryAcquireLease, a take-over or a renewal.
	kindLease leaderKind = 1 << iota
	// kindResign: ReleaseLease, at shutdown.
	kindResign
	// kindDuties: LockLeaderDuties, the leader's housekeeping.
	kindDuties
)

// leaderRecorder notes the lease and duty calls of an actor's transaction
// in kind before it makes them, so that the call's round trips, parked at
// the gate, are known as the leader's when the simulator draws when they
// go. It runs on the actor's goroutine; the simulator reads kind once the
// controller has settled, after the round trip parked.
type leaderRecorder struct {
	*releaseRecorder
	kind *leaderKind
}

func (r leaderRecorder) ExpireLease(ctx context.Context) (bool, error) {
	*r.kind |= kindLease
	return r.releaseRecorder.ExpireLease(ctx)
}

func (r leaderRecorder) TryAcquireLease(ctx context.Context, w ulid.ULID, ttl time.Duration) (bool, error) {
	*r.kind |= kindLease
	return r.releaseRecorder.TryAcquireLease(ctx, w, ttl)
}

func (r leaderRecorder) ReleaseLease(ctx context.Context, w ulid.ULID) (bool, error) {
	*r.kind |= kindResign
	return r.releaseRecorder.ReleaseLease(ctx, w)
}

func (r leaderRecorder) LockLeaderDuties(ctx context.Context, w ulid.ULID) (bool, error) {
	*r.kind |= kindDuties
	return r.releaseRecorder.LockLeaderDuties(ctx, w)
}

// leaderKind is what the open transaction of conn's actor asked of the
// lease so far: zero for one that neither renews, takes nor releases the
// lease nor does the leader's duties.
func (s *sim) leaderKind(conn string) leaderKind {
	if a := s.il.actors[actorLabel(conn)]; a != nil && a.open {
		return a.kind
	}
	return 0
}

// leaseMarks notes the races of the lease that a's commit, changing the
// lease as l says, took part in: a renewal or a resign of another process
// in flight as the lease was taken over, or a take-over in flight as it
// was given up; three processes' lease transactions open together; a
// duty transaction in flight as the lease changed.
func (s *sim) leaseMarks(a *actor, l *store.LeaseChange) {
	if l == nil || sameLease(l.Before, l.After) {
		return
	}
	prev := s.lastHolder
	if l.Before != nil {
		prev = l.Before.WorkerID
	}
	takeOver := l.After != nil && (l.Before == nil || l.Before.WorkerID != l.After.WorkerID || !l.Before.ElectedAt.Equal(l.After.ElectedAt))
	contending := 0
	for _, o := range s.il.actors {
		if o == a || !o.open || o.kind == 0 {
			continue
		}
		if o.kind&(kindLease|kindResign) != 0 {
			contending++
		}
		if o.kind&kindDuties != 0 {
			s.res.Marks.set(MarkDutiesBesideLease)
		}
		if takeOver && o.kind&kindLease != 0 && s.workerOfActor(o) == prev && !prev.IsZero() {
			s.res.Marks.set(MarkRenewBesideTakeOver)
		}
		if takeOver && o.kind&kindResign != 0 || a.kind&kindResign != 0 && o.kind&kindLease != 0 {
			s.res.Marks.set(MarkResignBesideLease)
		}
	}
	if contending >= 2 {
		s.res.Marks.set(MarkLeaseContended)
	}
}

// workerOfActor is the worker id of the process whose actor a is, zero for
// the client.
func (s *sim) workerOfActor(a *actor) ulid.ULID {
	if p := s.procNamed(a.label); p != nil && p.core != nil {
		return p.core.ID()
	}
	return ulid.ULID{}
}
