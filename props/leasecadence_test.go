package props

import (
	"testing"
	"time"
)

var leaseCadenceCases = []violationCase{
	{"holder's tick past the leader bound without a lease pass", LeaseCadence, "did not maintain the lease: it began 1.5s after", func(b *builder) int {
		b.params.LeaderBound, b.params.SerialTransactions = time.Second, true
		b.commit(w1, b.register(w1))
		tickWith(b, w1, LeasePass)
		b.after(500 * time.Millisecond)
		tickWith(b, w1, "")
		b.after(time.Second)
		b.event(TickStarted, w1, nil)
		return atNext(b, func() { b.event(JobPass, w1, nil) })
	}},
}

// TestLeaseCadenceAllowsWhatItShould: a holder that maintains its lease
// once the bound passed, a failed attempt counting, a worker that does
// not hold the lease, and a holder shutting down are clean.
func TestLeaseCadenceAllowsWhatItShould(t *testing.T) {
	b := newBuilder()
	b.params.LeaderBound, b.params.SerialTransactions = time.Second, true
	setup(b)
	tickWith(b, w1, LeasePass)
	for range 3 {
		b.after(600 * time.Millisecond)
		tickWith(b, w1, "")
		b.after(600 * time.Millisecond)
		b.event(TickStarted, w1, nil)
		b.event(LeasePass, w1, func(e *Event) { e.Reason = "failed" })
		b.event(JobPass, w1, nil)
		tickWith(b, w2, "")
	}
	b.after(1200 * time.Millisecond) // within the lease's 5 s
	b.event(ShutdownBegan, w1, nil)
	tickWith(b, w1, "")
	for _, v := range mustCheck(t, b.history()) {
		if v.Property == LeaseCadence {
			t.Errorf("violation in a good history: %v", v)
		}
	}
}
