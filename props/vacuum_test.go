package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// vacuumOn turns the duty on: 10 dead rows, one minute.
func vacuumOn(b *builder) {
	b.params.VacuumDeadRows, b.params.VacuumInterval = 10, time.Minute
	setup(b)
}

// claimVacuum records leader duties of w that claim a vacuum at dead rows.
func (b *builder) claimVacuum(w ulid.ULID, dead int64) {
	b.event(DutiesStarted, w, nil)
	b.event(VacuumClaimed, w, func(e *Event) { e.DeadRows = dead })
	b.event(DutiesEnded, w, nil)
}

// A vacuum claimed by the leader under its lease, at the threshold, the
// interval after the last one (another leader's), and started once, keeps
// property 16; so does a claim that its process crashed before starting.
func TestVacuumWhenDue(t *testing.T) {
	b := newBuilder()
	vacuumOn(b)
	b.claimVacuum(w1, 10)
	b.event(VacuumStarted, w1, nil)
	b.after(time.Minute)
	b.reacquire(w2)
	b.claimVacuum(w2, 11)
	b.emit(Event{Kind: Crashed, Process: b.procName(w2), Worker: w2})
	if vs := mustCheck(t, b.history()); len(vs) > 0 {
		t.Fatalf("violations of a history that keeps the vacuum duty's rules:\n%v", vs)
	}
}

var vacuumCases = []violationCase{
	{"within the interval of another leader's", Vacuum, "within the interval", func(b *builder) int {
		vacuumOn(b)
		b.claimVacuum(w1, 10)
		b.after(59 * time.Second)
		b.reacquire(w2)
		return atNext(b, func() { b.claimVacuum(w2, 50) }) + 1
	}},
	{"below the threshold", Vacuum, "below the threshold", func(b *builder) int {
		vacuumOn(b)
		return atNext(b, func() { b.claimVacuum(w1, 9) }) + 1
	}},
	{"with the duty off", Vacuum, "duty off", func(b *builder) int {
		setup(b)
		return atNext(b, func() { b.claimVacuum(w1, 100) }) + 1
	}},
	{"outside leader duties", Vacuum, "outside its leader duties", func(b *builder) int {
		vacuumOn(b)
		return atNext(b, func() { b.event(VacuumClaimed, w1, func(e *Event) { e.DeadRows = 10 }) })
	}},
	{"under an expired lease", Vacuum, "without holding an unexpired lease", func(b *builder) int {
		vacuumOn(b)
		b.event(DutiesStarted, w1, nil)
		b.after(6 * time.Second) // the lease lapsed while the duties ran
		return atNext(b, func() { b.event(VacuumClaimed, w1, func(e *Event) { e.DeadRows = 10 }) })
	}},
	{"started without a claim", Vacuum, "had not claimed", func(b *builder) int {
		vacuumOn(b)
		return atNext(b, func() { b.event(VacuumStarted, w1, nil) })
	}},
	{"started twice", Vacuum, "had not claimed", func(b *builder) int {
		vacuumOn(b)
		b.claimVacuum(w1, 10)
		b.event(VacuumStarted, w1, nil)
		return atNext(b, func() { b.event(VacuumStarted, w1, nil) })
	}},
}

// vacuumBeforeAFailRun is a live log's order: the vacuum's start, which no
// transaction stamps, waits with a handler's end for the next store time,
// that of the commit that fails the job by the handler's decision.
func vacuumBeforeAFailRun(b *builder) {
	vacuumOn(b)
	b.commit(none, b.enqueue(1))
	b.commit(w1, b.reserve(1, w1))
	b.start(1, w1)
	b.claimVacuum(w1, 10)
	b.after(time.Second)
	b.event(VacuumStarted, w1, nil)
	b.end(1, w1, Fail)
	b.commit(w1, b.fail(1, "no"))
}

// Reconstructing a live run keeps a vacuum's start, stamped with the next
// transaction's time, before that transaction's rows, as it happened: a
// handler's end stamped with it too must not land after the row it ended.
func TestReconstructVacuumStartBeforeTheNextCommit(t *testing.T) {
	b := newBuilder()
	vacuumBeforeAFailRun(b)
	if vs := mustCheck(t, b.history()); len(vs) > 0 {
		t.Fatalf("the history itself breaks a promise: %v", vs)
	}
	jobs, workers, log := liveRecord(b)
	for _, v := range mustCheck(t, Reconstruct(b.params, jobs, workers, log)) {
		t.Errorf("unexpected violation: %v", v)
	}
}
