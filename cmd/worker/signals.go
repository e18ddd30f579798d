package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/worker/engine"
)

// shutdownSignals turns SIGTERM and SIGINT into the two stages of a
// shutdown: the first cancels stop (stop reserving, drain), the second
// cancels abandon (give up the drain: cut the running jobs short and
// release them, worker.Options.Abandon). The default handling is back
// before abandon is cancelled, so a third signal kills the process at
// once.
func shutdownSignals() (stop, abandon context.Context) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return signalStages(ch, time.Now, func() { signal.Stop(ch) })
}

// signalStages reads the signals of ch as shutdownSignals describes. What
// each signal means (a repeat of the first within engine.RepeatWindow is
// the same request) is engine.StopRequests's to decide, the simulator
// judges its processes' signals with the same; restore runs before
// abandon is cancelled.
func signalStages(ch <-chan os.Signal, now func() time.Time, restore func()) (stop, abandon context.Context) {
	stop, cancelStop := context.WithCancel(context.Background())
	abandon, cancelAbandon := context.WithCancel(context.Background())
	go func() {
		var reqs engine.StopRequests
		for sig := range ch {
			switch reqs.Judge(sig.String(), now()) {
			case engine.StopBegin:
				cancelStop()
			case engine.StopAbandon:
				restore()
				cancelAbandon()
				return
			}
		}
	}()
	return stop, abandon
}
