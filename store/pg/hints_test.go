package pg

import (
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

func hintJob(queue string, priority int, at time.Time, entropy byte) store.Job {
	var id ulid.ULID
	_ = id.SetTime(ulid.Timestamp(at))
	id[15] = entropy
	return store.Job{ID: id, Queue: queue, Priority: priority, ScheduledAt: at}
}

// fromStartOf reports whether args make queue i read from its start.
func fromStartOf(args hintArgs, i int) bool {
	return args.priorities[i] == store.MinPriority-1 && args.times[i].InfinityModifier < 0 && args.ids[i].Bytes == [16]byte{}
}

// TestHintsStartWhereTheLastFullReservationEnded: a reservation that took
// all it asked for leaves, for each queue, the last job it took there
// (in reservation order, not id order); the next reads after it.
func TestHintsStartWhereTheLastFullReservationEnded(t *testing.T) {
	var h reserveHints
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	queues := []string{"a", "b"}
	args, epoch := h.start(queues)
	if !fromStartOf(args, 0) || !fromStartOf(args, 1) {
		t.Fatalf("a Store with no hint starts at %+v", args)
	}
	late := hintJob("a", 1, t0, 2) // an earlier id than the urgent job's, later in reservation order
	h.learn(epoch, 3, []store.Job{hintJob("a", 1, t0, 1), hintJob("a", 0, t0.Add(time.Second), 9), late})
	args, _ = h.start(queues)
	if args.priorities[0] != 1 || !args.times[0].Time.Equal(late.ScheduledAt) || args.ids[0].Bytes != late.ID {
		t.Errorf("queue a is read after %d %v %x, want the last job's key", args.priorities[0], args.times[0].Time, args.ids[0].Bytes)
	}
	if !fromStartOf(args, 1) {
		t.Errorf("queue b, of which nothing was reserved, has a hint")
	}
}

// TestHintsForgotten: a short reservation, a forget (insert, promotion,
// rollback) and a forget during a reservation each leave no hint.
func TestHintsForgotten(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	full := []store.Job{hintJob("q", 0, t0, 1)}
	hinted := func(h *reserveHints) bool {
		args, _ := h.start([]string{"q"})
		return !fromStartOf(args, 0)
	}
	var h reserveHints
	_, epoch := h.start([]string{"q"})
	h.learn(epoch, 1, full)
	if !hinted(&h) {
		t.Fatal("a full reservation left no hint")
	}
	_, epoch = h.start([]string{"q"})
	h.learn(epoch, 2, full)
	if hinted(&h) {
		t.Error("a reservation that took less than it asked for left its hint")
	}
	_, epoch = h.start([]string{"q"})
	h.learn(epoch, 1, full)
	h.forget()
	if hinted(&h) {
		t.Error("forget left a hint")
	}
	_, epoch = h.start([]string{"q"})
	h.forget() // while the reservation is in flight
	h.learn(epoch, 1, full)
	if hinted(&h) {
		t.Error("a reservation that began before a forget learned a hint")
	}
}

// TestEveryEighthReservationReadsFromTheStart: a row another process made
// available below a hint waits at most fullScanEvery reservations.
func TestEveryEighthReservationReadsFromTheStart(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var h reserveHints
	var fromStart []int
	for i := range 3 * fullScanEvery {
		args, epoch := h.start([]string{"q"})
		if fromStartOf(args, 0) {
			fromStart = append(fromStart, i)
		}
		h.learn(epoch, 1, []store.Job{hintJob("q", 0, t0, byte(i))})
	}
	// The first has no hint yet; then one in every fullScanEvery.
	want := []int{0, fullScanEvery - 1, 2*fullScanEvery - 1, 3*fullScanEvery - 1}
	if !slices.Equal(fromStart, want) {
		t.Fatalf("reservations %v read from the start, want %v", fromStart, want)
	}
}

// TestBelowAHint: an insert may sort below its queue's hint unless it is
// of a larger priority number or scheduled after the hint's time.
func TestBelowAHint(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var h reserveHints
	_, epoch := h.start([]string{"q"})
	h.learn(epoch, 1, []store.Job{hintJob("q", 3, t0, 1)})
	for _, c := range []struct {
		job  store.NewJob
		want bool
	}{
		{store.NewJob{Queue: "q", Priority: 3}, true},                                 // now: may be the hint's time
		{store.NewJob{Queue: "q", Priority: 2, ScheduledAt: t0.Add(time.Hour)}, true}, // more urgent
		{store.NewJob{Queue: "q", Priority: 3, ScheduledAt: t0}, true},
		{store.NewJob{Queue: "q", Priority: 3, ScheduledAt: t0.Add(time.Microsecond)}, false},
		{store.NewJob{Queue: "q", Priority: 4}, false},
		{store.NewJob{Queue: "other", Priority: 0}, false}, // no hint there
	} {
		if got := h.below([]store.NewJob{c.job}); got != c.want {
			t.Errorf("insert of %+v: below = %v, want %v", c.job, got, c.want)
		}
	}
}
