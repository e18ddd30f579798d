package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// The first request stops, the same at once is the same request, and a
// second one (another signal, or the same one a RepeatWindow later) gives
// the drain up; nothing is left to give up after that.
func TestStopRequests(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		after time.Duration
		want  StopVerdict
	}{
		{"terminated", time.Microsecond, StopRepeat},
		{"terminated", RepeatWindow - time.Nanosecond, StopRepeat},
		{"terminated", RepeatWindow, StopAbandon},
		{"interrupt", time.Microsecond, StopAbandon},
	} {
		var r StopRequests
		if v := r.Judge("terminated", t0); v != StopBegin {
			t.Fatalf("first request: %d, want StopBegin", v)
		}
		if v := r.Judge(c.name, t0.Add(c.after)); v != c.want {
			t.Errorf("terminated then %s %v later: %d, want %d", c.name, c.after, v, c.want)
		}
		if v := r.Judge(c.name, t0.Add(c.after)); c.want == StopAbandon && v != StopAgain {
			t.Errorf("a third request after the drain was given up: %d, want StopAgain", v)
		}
	}
}

// A handler's context outlives the request to stop, keeps the stop's
// values, and ends with the cause of the action that ends it.
func TestContexts(t *testing.T) {
	type key struct{}
	stop, cancelStop := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	c := NewContexts(stop)
	a, b, done := ulid.Make(), ulid.Make(), ulid.Make()
	ctxA, ctxB, ctxDone := c.Start(a), c.Start(b), c.Start(done)
	cancelStop()
	if ctxA.Err() != nil || ctxA.Value(key{}) != "v" {
		t.Fatalf("after the stop: err %v, value %v; want running, with the stop's value", ctxA.Err(), ctxA.Value(key{}))
	}
	c.Finished(done)
	if ctxDone.Err() == nil {
		t.Fatal("a finished handler's context is still live")
	}
	c.Carry(Action{Kind: ActCancelJobs, JobIDs: []ulid.ULID{a}})
	if !errors.Is(context.Cause(ctxA), ErrJobCancelled) || ctxB.Err() != nil {
		t.Fatalf("after cancelling a: causes %v and %v, want ErrJobCancelled and none", context.Cause(ctxA), context.Cause(ctxB))
	}
	c.Carry(Action{Kind: ActArm})
	if ctxB.Err() != nil {
		t.Fatal("an ActArm ended a handler's context")
	}
	c.Carry(Action{Kind: ActCancelRunning})
	if !errors.Is(context.Cause(ctxB), ErrShutdownCancel) || !errors.Is(context.Cause(c.Start(ulid.Make())), ErrShutdownCancel) {
		t.Fatalf("after the drain deadline: cause %v, want ErrShutdownCancel for running and later handlers", context.Cause(ctxB))
	}
}

// A drain given up (InAbandon) goes to the drain deadline at once; a
// runner not stopped yet stops first, and one past the deadline has
// nothing left to give up.
func TestPolicyAbandon(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig()
	cfg.DrainTimeout = 5 * time.Second
	d := newDriven(e, cfg)
	e.enqueue("q", 1)
	d.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	d.want(Input{Kind: InStop}, "arm drain 5s")
	d.want(Input{Kind: InAbandon}, "cancel, arm grace 500ms")
	d.want(Input{Kind: InAbandon}, "")
	d.want(Input{Kind: InTimer, Timer: TimerDrain}, "")

	e2 := newEnv(t)
	d2 := newDriven(e2, cfg)
	e2.enqueue("q", 1)
	d2.want(Input{Kind: InStarted}, "start 1, arm poll 1s")
	d2.want(Input{Kind: InAbandon}, "arm drain 5s, cancel, arm grace 500ms")
}
