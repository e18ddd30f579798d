package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// faultStore is the store as one worker process sees it: during chaos its
// transactions may wait (latency, while the other workers go on), fail
// before running, run and roll back, or commit and still report an error.
// It also records what each transaction did, for the coverage marks.
type faultStore struct {
	s   *sim
	p   *proc
	rec txRecorder

	// The transaction under way: its function, whether it is to fail at
	// commit, and body, which runs them, made once so that a transaction
	// allocates no closure.
	fn    func(store.Tx) error
	abort bool
	body  func(store.Tx) error
	// txOnly is f without its RunJobPass, made once: a job pass through it
	// runs as a transaction of the Tx methods, through InTx.
	txOnly store.Store
}

func newFaultStore(s *sim, p *proc) *faultStore {
	f := &faultStore{s: s, p: p}
	f.body = f.run
	f.txOnly = struct{ store.Store }{f}
	return f
}

// The errors of simulated faults. Each wraps store.ErrUnavailable, as the
// PostgreSQL store's errors of a lost connection do; they are built once
// because faults strike on a good share of all calls.
var (
	errBefore = unavailable("simulated connection loss before the transaction ran")
	errAbort  = unavailable("simulated failure at commit: rolled back")
	errAfter  = unavailable("simulated connection loss after the commit")
	errOutage = unavailable("simulated database outage")
	errEnded  = unavailable("the simulation ended while the transaction waited")
	// errTimedOut: the call's deadline passed while the store was silent.
	errTimedOut = fmt.Errorf("simulated store call timeout: %w: %w", context.DeadlineExceeded, store.ErrUnavailable)
)

func unavailable(msg string) error { return fmt.Errorf("%s: %w", msg, store.ErrUnavailable) }

// InTx runs fn against the backend with the faults this seed enables.
func (f *faultStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	faults, sent, err := f.early()
	if !sent {
		return err
	}
	switch f.drawAtStore(faults) {
	case atStoreReadOnly:
		return f.readOnly(ctx)
	case atStoreHalfOpen:
		return f.halfOpen(ctx, fn)
	case atStoreAbort:
		return f.commit(ctx, fn, faults, true)
	}
	return f.commit(ctx, fn, faults, false)
}

// atStore is the fault drawn for a transaction that reached the store.
type atStore int

const (
	atStoreNone     atStore = iota
	atStoreReadOnly         // a read-only node refuses its writes
	atStoreHalfOpen         // the store falls silent after the commit
	atStoreAbort            // it fails at commit and rolls back
)

// drawAtStore draws the faults that strike a transaction at the store, in
// the one order InTx and RunJobPass share, so that a seed draws alike
// whichever of the two a call goes through.
func (f *faultStore) drawAtStore(faults bool) atStore {
	switch {
	case !faults:
		return atStoreNone
	case f.draw(ReadOnly):
		return atStoreReadOnly
	case f.draw(HalfOpen):
		return atStoreHalfOpen
	case f.draw(StoreAbort):
		return atStoreAbort
	}
	return atStoreNone
}

// early draws the faults that strike before a transaction reaches the
// store: silence, latency, an outage, a loss before it ran. Unless sent,
// the call ends there and returns err; faults reports whether the later
// faults may still strike (the chaos phase may end during the latency).
func (f *faultStore) early() (faults, sent bool, err error) {
	s, p := f.s, f.p
	if p.silent {
		return false, false, f.wait(silence)
	}
	faults = s.phase == chaos
	if faults && f.draw(Latency) {
		d := s.procRand(p, Latency).DurationBetween(time.Millisecond, s.sc.LeaseTTL.D()*3/2).Truncate(time.Microsecond)
		s.tr.printf(s.now, p.name, "store latency %v", d)
		if err := f.wait(d); err != nil {
			return false, false, err
		}
		faults = s.phase == chaos
	}
	if faults && s.inOutage() {
		return false, false, errOutage
	}
	if faults && f.draw(StoreBefore) {
		s.tr.printf(s.now, p.name, "store error before the transaction")
		return false, false, errBefore
	}
	return faults, true, nil
}

// commit runs fn as p's transaction, failing it at commit when abort is
// set, then draws the loss after the commit.
func (f *faultStore) commit(ctx context.Context, fn func(store.Tx) error, faults, abort bool) error {
	s, p := f.s, f.p
	f.fn, f.abort = fn, abort
	err := s.procTx(ctx, p, f.body)
	f.fn = nil
	if abort && errors.Is(err, errAbort) {
		s.tr.printf(s.now, p.name, "store error at commit: rolled back")
	}
	return f.settle(err, faults)
}

// settle draws the loss after a transaction that committed and notes the
// marks of what f.rec says it did.
func (f *faultStore) settle(err error, faults bool) error {
	s, p := f.s, f.p
	if err == nil && faults && f.draw(StoreAfter) {
		s.tr.printf(s.now, p.name, "store error after the commit")
		if f.rec.reserved > 0 {
			s.res.Marks.set(MarkAmbiguousReserve)
		}
		if f.rec.results > 0 {
			s.res.Marks.set(MarkAmbiguousComplete)
		}
		return errAfter
	}
	if err == nil && f.rec.dutyRefused {
		s.res.Marks.set(MarkLeaseExpiredInDuties)
	}
	return err
}

// silence is how long a silent store keeps a call waiting: longer than
// any run.
const silence = 24 * time.Hour

// wait parks the call for d of store latency, or until the call's
// deadline (Action.Timeout) if that comes first: the caller then gives
// the call up, as a context's deadline ends a PostgreSQL call.
func (f *faultStore) wait(d time.Duration) error {
	s, p := f.s, f.p
	if p.deadline > 0 && s.now+d > p.deadline {
		if !s.park(p, p.deadline-s.now) {
			return errEnded
		}
		s.tr.printf(s.now, p.name, "store call timed out")
		if p.silent {
			s.res.Marks.set(MarkStoreSilent)
		}
		return errTimedOut
	}
	if !s.park(p, d) {
		return errEnded
	}
	return nil
}

// run is the body of the transaction InTx runs: fn on a recorder of what
// it does, then the failure at commit if one was drawn.
func (f *faultStore) run(tx store.Tx) error {
	f.rec = txRecorder{Tx: tx}
	if err := f.fn(&f.rec); err != nil {
		return err
	}
	if f.abort {
		return errAbort
	}
	return nil
}

// on is s.sc.On(k) through s.faultOf.
func (s *sim) on(k FaultKind) bool {
	f := s.faultOf[k]
	return f != nil && f.On
}

// rate is s.sc.Rate(k) through s.faultOf.
func (s *sim) rate(k FaultKind) float64 {
	if f := s.faultOf[k]; f != nil {
		return f.Rate
	}
	return 0
}

// draw decides whether fault kind k strikes this transaction, counting it.
func (f *faultStore) draw(k FaultKind) bool {
	if !f.s.on(k) || !f.s.procRand(f.p, k).Chance(f.s.rate(k)) {
		return false
	}
	f.s.count(k)
	return true
}

// Listen is not used by the simulator, which delivers notifications itself
// from the commits it observes.
func (f *faultStore) Listen(ctx context.Context) (<-chan store.Notification, error) {
	return f.s.be.Listen(ctx)
}

// txRecorder passes every call through and notes what the transaction did.
type txRecorder struct {
	store.Tx
	reserved    int  // jobs reserved
	results     int  // results recorded (completed or failed)
	dutyRefused bool // LockLeaderDuties said the lease is no longer ours
}

func (r *txRecorder) Reserve(ctx context.Context, w ulid.ULID, queues []string, limit int) ([]store.Job, error) {
	jobs, err := r.Tx.Reserve(ctx, w, queues, limit)
	r.reserved += len(jobs)
	return jobs, err
}

func (r *txRecorder) CompleteJobs(ctx context.Context, c store.Completion) ([]ulid.ULID, error) {
	fenced, err := r.Tx.CompleteJobs(ctx, c)
	if err == nil {
		r.results += len(c.IDs) - len(fenced)
	}
	return fenced, err
}

func (r *txRecorder) FailJob(ctx context.Context, w, id ulid.ULID, reason string) error {
	err := r.Tx.FailJob(ctx, w, id, reason)
	if err == nil {
		r.results++
	}
	return err
}

func (r *txRecorder) LockLeaderDuties(ctx context.Context, w ulid.ULID) (bool, error) {
	ok, err := r.Tx.LockLeaderDuties(ctx, w)
	if err == nil && !ok {
		r.dutyRefused = true
	}
	return ok, err
}

// inOutage reports whether the database is down now.
func (s *sim) inOutage() bool {
	for _, w := range s.outages {
		if s.now >= w.from && s.now < w.to {
			return true
		}
	}
	return false
}

// drawOutages places the outage windows inside the chaos phase.
func (s *sim) drawOutages() []window {
	if !s.on(Outage) {
		return nil
	}
	r := s.clientRand(Outage)
	var out []window
	for range int(s.rate(Outage)) {
		from := r.DurationBetween(0, s.sc.Chaos.D()).Truncate(time.Microsecond)
		length := r.DurationBetween(time.Second, s.sc.DeadThreshold.D()*3/2).Truncate(time.Microsecond)
		out = append(out, window{from, min(from+length, s.sc.Chaos.D())})
		s.at(from, &event{kind: evOutage, w: -1, gen: uint64(length)})
	}
	return out
}
