package props

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// tickWith records a tick of w's process at the builder's time that
// heartbeats (kind Heartbeat), renews w's lease (LeasePass) or neither
// (""), then makes a job pass.
func tickWith(b *builder, w ulid.ULID, kind Kind) {
	b.event(TickStarted, w, nil)
	switch kind {
	case Heartbeat:
		b.commit(w, b.heartbeat(w))
	case LeasePass:
		b.commit(w, b.acquire(w))
	}
	if kind != "" {
		b.event(kind, w, nil)
	}
	b.event(JobPass, w, nil)
}

var heartbeatCases = []violationCase{
	{"heartbeat reported but not recorded", Heartbeats, "its heartbeat at 2030-01-01T00:00:01.000000Z was recorded", func(b *builder) int {
		setup(b)
		b.after(time.Second).commit(w1, b.heartbeat(w1))
		b.event(Heartbeat, w1, nil)
		b.commit(w2)
		return atNext(b, func() { b.event(Heartbeat, w2, nil) })
	}},
	{"job pass past the heartbeat bound without a heartbeat", Heartbeats, "did not heartbeat: its tick began 3s after", func(b *builder) int {
		b.params.HeartbeatBound = 2 * time.Second
		setup(b)
		tickWith(b, w1, Heartbeat)
		b.after(time.Second)
		tickWith(b, w1, "")
		b.after(2 * time.Second)
		b.event(TickStarted, w1, nil)
		return atNext(b, func() { b.event(JobPass, w1, nil) })
	}},
}

// TestHeartbeatsAllowWhatTheyShould: passes heartbeat once the bound
// passed since the tick of the last heartbeat, the first pass of a worker
// starts its count, and a history that does not hold every heartbeat is
// not judged; no violation.
func TestHeartbeatsAllowWhatTheyShould(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		b := newBuilder()
		b.params.HeartbeatBound, b.params.HeartbeatsUnknown = 2*time.Second, unknown
		setup(b)
		tickWith(b, w2, "")
		for range 3 {
			b.after(time.Second)
			tickWith(b, w1, "")
			b.after(time.Second)
			tickWith(b, w1, Heartbeat)
		}
		if unknown {
			b.after(5 * time.Second)
			tickWith(b, w1, "")
			b.commit(w2)
			b.event(Heartbeat, w2, nil)
		}
		for _, v := range mustCheck(t, b.history()) {
			t.Errorf("violation in a good history (heartbeats unknown %v): %v", unknown, v)
		}
	}
}
