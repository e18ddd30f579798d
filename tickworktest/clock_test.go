package tickworktest

import (
	"context"
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// TestDeadlinesExpireWhenTheClockMoves: a deadline ends its context, and
// the contexts derived from it, in the call that moves the clock past it,
// with DeadlineExceeded; not before.
func TestDeadlinesExpireWhenTheClockMoves(t *testing.T) {
	c := newVirtualClock(t0)
	ctx, cancel := c.WithTimeout(context.Background(), time.Second)
	defer cancel()
	child, stop := context.WithCancel(ctx)
	defer stop()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(t0.Add(time.Second)) {
		t.Fatalf("deadline %v %v, want t0+1s", d, ok)
	}
	c.set(t0.Add(999 * time.Millisecond))
	if ctx.Err() != nil || child.Err() != nil {
		t.Fatalf("ended before the deadline: %v, %v", ctx.Err(), child.Err())
	}
	c.set(t0.Add(time.Second))
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("at the deadline: %v, child %v; want both DeadlineExceeded at once", ctx.Err(), child.Err())
	}
	select {
	case <-child.Done():
	default:
		t.Fatal("the child's Done is open after the deadline")
	}
	if len(c.deadlines) != 0 {
		t.Errorf("%d deadlines still pending", len(c.deadlines))
	}
}

func TestDeadlineCancelAndParent(t *testing.T) {
	c := newVirtualClock(t0)
	ctx, cancel := c.WithTimeout(context.Background(), time.Second)
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) || len(c.deadlines) != 0 {
		t.Fatalf("after cancel: %v with %d deadlines pending; want Canceled and none", ctx.Err(), len(c.deadlines))
	}
	c.set(t0.Add(time.Hour))
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("a cancelled context became %v when the clock passed its deadline", ctx.Err())
	}

	parent, stopParent := context.WithCancel(context.Background())
	ctx, cancel = c.WithTimeout(parent, time.Second)
	defer cancel()
	stopParent()
	<-ctx.Done() // the parent's end arrives through context.AfterFunc
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("after the parent ended: %v, want Canceled", ctx.Err())
	}

	past, cancel := c.WithDeadline(context.Background(), t0)
	defer cancel()
	if !errors.Is(past.Err(), context.DeadlineExceeded) {
		t.Errorf("a deadline already passed: %v, want DeadlineExceeded at once", past.Err())
	}
}

func TestVirtualClockHasNoTimers(t *testing.T) {
	c := newVirtualClock(t0)
	for name, call := range map[string]func(){
		"Timer": func() { c.Timer(time.Second) }, "After": func() { c.After(time.Second) },
		"Sleep": func() { c.Sleep(time.Second) }, "Ticker": func() { c.Ticker(time.Second) },
		"Tick": func() { c.Tick(time.Second) }, "AfterFunc": func() { c.AfterFunc(time.Second, func() {}) },
	} {
		func() {
			defer func() {
				if p := recover(); p != noTimers {
					t.Errorf("%s: panic %v, want %q", name, p, noTimers)
				}
			}()
			call()
		}()
	}
	if c.Since(t0.Add(-time.Second)) != time.Second || c.Until(t0.Add(time.Minute)) != time.Minute {
		t.Error("Since and Until do not read the virtual time")
	}
}
