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
	var clock atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(clock.Load())) }
	ch := make(chan os.Signal) // unbuffered: a send returns once the reader took it
	var restored atomic.Bool
	stop, abandon := signalStages(ch, now, func() { restored.Store(true) })
	ch <- syscall.SIGTERM
	<-stop.Done()
	clock.Store(int64(time.Microsecond))
	ch <- syscall.SIGTERM
	clock.Store(int64(500 * time.Millisecond))
	ch <- syscall.SIGTERM // taken: the one before was judged and waved through
	if abandon.Err() != nil || restored.Load() {
		t.Fatal("a TERM repeated within a second abandoned the drain")
	}
	clock.Store(int64(1500 * time.Millisecond))
	ch <- syscall.SIGTERM
	select {
	case <-abandon.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a TERM 1.5 s after the first did not abandon the drain")
	}
	if !restored.Load() {
		t.Error("abandon was cancelled before the default handling was back")
	}
}
