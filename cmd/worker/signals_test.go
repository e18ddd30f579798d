package main

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A TERM repeated at once (timeout(1) signals the process and its
// group) only stops the worker; a TERM a second later abandons the drain.
func TestRepeatedSignalIsOneRequest(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	// The reader asks the clock once per signal, so the test hands it each
	// signal's time itself: moving a shared clock after a send raced the
	// reader's look at it.
	times := make(chan time.Time)
	now := func() time.Time { return <-times }
	ch := make(chan os.Signal) // unbuffered: a send returns once the reader took it
	var restored atomic.Bool
	stop, abandon := signalStages(ch, now, func() { restored.Store(true) })
	signalAt := func(at time.Duration) {
		t.Helper()
		select {
		case ch <- syscall.SIGTERM:
		case <-time.After(10 * time.Second):
			t.Fatalf("the TERM at %v was not read: the reader gave up before it", at)
		}
		times <- t0.Add(at)
	}
	signalAt(0)
	<-stop.Done()
	signalAt(time.Microsecond)
	signalAt(500 * time.Millisecond)
	// Read at all, the TERM at 1.5 s proves the one at 0.5 s was waved
	// through: the reader returns once it abandons.
	signalAt(1500 * time.Millisecond)
	select {
	case <-abandon.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a TERM 1.5 s after the first did not abandon the drain")
	}
	if !restored.Load() {
		t.Error("abandon was cancelled before the default handling was back")
	}
}
