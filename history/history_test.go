package history

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker"
	"github.com/tickwork/tickwork/worker/engine"
)

// The translation keeps what the checker needs of each event: the lease
// expiry the worker last learned goes with its duties, a handler's end
// carries its decision spelled as props spells it, and events the checker
// does not read translate to nothing.
func TestTranslate(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 1, 0, time.UTC)
	w, j := ulid.MustParse("01J0000000000000000000000A"), store.Job{ID: ulid.MustParse("01J00000000000000000000001")}
	var tr Translator
	for i, c := range []struct {
		in   engine.Event
		want props.Event
		ok   bool
	}{
		{engine.Event{Kind: engine.EventHeartbeat, Worker: w, StoreTime: at}, props.Event{Kind: props.Heartbeat, Time: at, Worker: w}, true},
		{engine.Event{Kind: engine.EventRegistered, Worker: w, StoreTime: at}, props.Event{}, false},
		{engine.Event{Kind: engine.EventLeaseAcquired, Worker: w, StoreTime: at, LeaseExpires: at.Add(time.Second)},
			props.Event{Kind: props.LeasePass, Time: at, Worker: w}, true},
		{engine.Event{Kind: engine.EventStoreError, Worker: w, Reason: "lease"}, props.Event{Kind: props.LeasePass, Worker: w, Reason: "failed"}, true},
		{engine.Event{Kind: engine.EventStoreError, Worker: w, Reason: "jobs"}, props.Event{}, false},
		{engine.Event{Kind: engine.EventDutiesStarted, Worker: w, StoreTime: at},
			props.Event{Kind: props.DutiesStarted, Time: at, Worker: w, LeaseExpires: at.Add(time.Second)}, true},
		{engine.Event{Kind: engine.EventJobFinished, Worker: w, Job: j, Decision: worker.Fail, Reason: "no"},
			props.Event{Kind: props.ExecEnded, Worker: w, Job: j.ID, Decision: props.Fail, Reason: "no"}, true},
		{engine.Event{Kind: engine.EventJobFinished, Worker: w, Job: j, Decision: worker.Snoozed, Reason: "snoozed for 1m0s", Delay: time.Minute},
			props.Event{Kind: props.ExecEnded, Worker: w, Job: j.ID, Decision: props.Snooze, Reason: "snoozed for 1m0s", Snooze: time.Minute}, true},
		{engine.Event{Kind: engine.EventDeclaredDead, Worker: w}, props.Event{Kind: props.DeclaredDead, Worker: w}, true},
		{engine.Event{Kind: engine.EventDutiesStarted, Worker: w, StoreTime: at},
			props.Event{Kind: props.DutiesStarted, Time: at, Worker: w}, true}, // the lease died with the worker id
		{engine.Event{Kind: engine.EventReleaseAbandoned, Worker: w, Count: 5},
			props.Event{Kind: props.ReleaseAbandoned, Worker: w, Failures: 5}, true},
		{engine.Event{Kind: engine.EventDrainDeadline, Worker: w, Count: 2}, props.Event{Kind: props.DrainDeadline, Worker: w}, true},
		{engine.Event{Kind: engine.EventTickStarted, Worker: w, Reason: "sleep"}, props.Event{Kind: props.TickStarted, Worker: w, Reason: "sleep"}, true},
		{engine.Event{Kind: engine.EventWaiting, Worker: w, Count: 1}, props.Event{Kind: props.Waiting, Worker: w, Failures: 1}, true},
		{engine.Event{Kind: engine.EventNotified, Worker: w, Reason: "q"}, props.Event{Kind: props.Notified, Worker: w, Queue: "q"}, true},
		{engine.Event{Kind: engine.EventJobPass, Worker: w, StoreTime: at, Queues: []string{"q"}, Limit: 3, Count: 1},
			props.Event{Kind: props.JobPass, Time: at, Worker: w, PassQueues: []string{"q"}, Limit: 3, Reserved: 1}, true},
		{engine.Event{Kind: engine.EventDutiesEnded, Worker: w, StoreTime: at, Limit: 8, Count: 3},
			props.Event{Kind: props.DutiesEnded, Time: at, Worker: w, Limit: 8, Deleted: 3}, true},
		{engine.Event{Kind: engine.EventDutiesEnded, Worker: w, StoreTime: at},
			props.Event{Kind: props.DutiesEnded, Time: at, Worker: w}, true},
		{engine.Event{Kind: engine.EventShutdownAbandoned, Worker: w, Count: 5},
			props.Event{Kind: props.ShutdownAbandoned, Worker: w, Failures: 5}, true},
		{engine.Event{Kind: engine.EventCancelChecked, Worker: w, StoreTime: at, Jobs: []ulid.ULID{j.ID}, Count: 1},
			props.Event{Kind: props.CancelChecked, Time: at, Worker: w, Asked: []ulid.ULID{j.ID}}, true},
		{engine.Event{Kind: engine.EventJobCancelled, Worker: w, Job: j, Reason: engine.CancelByNotification},
			props.Event{Kind: props.ExecCancelled, Worker: w, Job: j.ID}, true},
	} {
		var got props.Event
		ok := tr.Translate(&c.in, &got)
		if ok != c.ok || (ok && got.String() != c.want.String()) {
			t.Errorf("event %d (%s): got %v %s, want %v %s", i, c.in.Kind, ok, got.String(), c.ok, c.want.String())
		}
	}
}
