package engine

import (
	"slices"
	"testing"

	"github.com/tickwork/tickwork/store"
)

// A removed queue drains as at shutdown: the policy reports it drained
// only once its running job finished and the tick after recorded the
// result, and no job pass after the removal reserves from it; a queue
// added at runtime is reserved from at once.
func TestPolicyRemovedQueueDrainsAddedQueueReserves(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.Queues = []string{"a", "b"}
	d := newDriven(e, cfg)
	e.enqueue("a", 1)
	start := d.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	d.want(Input{Kind: InQueueRemoved, Queue: "a"}, "")
	later := e.enqueue("a", 1)
	d.want(Input{Kind: InTimer, Timer: TimerPoll}, "arm poll 1s")
	// Idle once it finished: the tick that records the result comes at
	// once, and the drain is reported after it.
	d.want(Input{Kind: InJobFinished, Result: Result{JobID: start[0].Jobs[0].ID}}, "arm poll 1s, drained a")
	if got := e.job(start[0].Jobs[0].ID); got.Status != store.Completed {
		t.Fatalf("drained with the job %s, want its result recorded", got.Status)
	}
	if got := e.job(later[0]); got.Status != store.Available {
		t.Fatalf("the job of a enqueued after the removal is %s, want available", got.Status)
	}
	for _, pass := range d.rec.of(EventJobPass)[1:] {
		if slices.Contains(pass.Queues, "a") {
			t.Fatalf("a job pass after the removal asked for %v", pass.Queues)
		}
	}
	e.enqueue("c", 1)
	d.want(Input{Kind: InQueueAdded, Queue: "c"}, "start 1, arm poll 1s")
	d.want(Input{Kind: InQueueRemoved, Queue: "b"}, "drained b") // nothing of b runs
	if got := d.p.Core().cfg.Queues; !slices.Equal(got, []string{"c"}) {
		t.Fatalf("queues %v, want [c]", got)
	}
}

// A notification of a queue the worker no longer reserves from brings no
// tick and is not recorded as a wake-up owed.
func TestPolicyIgnoresNotificationsOfRemovedQueues(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.Queues = []string{"a", "b"}
	d := newDriven(e, cfg)
	d.want(Input{Kind: InStarted}, "arm poll 1s")
	d.want(Input{Kind: InQueueRemoved, Queue: "a"}, "drained a")
	d.want(Input{Kind: InNotification, Note: store.Notification{Channel: store.ChannelAvailable, Queue: "a"}}, "")
	if n := d.rec.count(EventNotified); n != 0 {
		t.Fatalf("%d notified events for a removed queue, want 0", n)
	}
	acts, calls := d.step(Input{Kind: InNotification, Note: store.Notification{Channel: store.ChannelAvailable, Queue: store.AllQueues}})
	if len(calls) != 1 || calls[0] != CallTick || describe(acts) != "arm poll 1s" {
		t.Fatalf("a resume-all notification: calls %v, actions %q; want one tick", calls, describe(acts))
	}
}
