package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tickwork/tickwork/worker"
)

// shutdownSignals turns SIGTERM and SIGINT into the two stages of a
// shutdown: the first cancels stop (stop reserving, drain), the second
// cancels abandon (give up the drain: cut the running jobs short and
// release them). The default handling is back before abandon is
// cancelled, so a third signal kills the process at once.
func shutdownSignals() (stop, abandon context.Context) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return signalStages(ch, time.Now, func() { signal.Stop(ch) })
}

// signalStages reads the signals of ch as shutdownSignals describes,
// counting a signal that repeats the first within repeatWindow as the
// same request (sameRequest); restore runs before abandon is cancelled.
func signalStages(ch <-chan os.Signal, now func() time.Time, restore func()) (stop, abandon context.Context) {
	stop, cancelStop := context.WithCancel(context.Background())
	abandon, cancelAbandon := context.WithCancel(context.Background())
	go func() {
		first := <-ch
		at := now()
		cancelStop()
		for sig := range ch {
			if !sameRequest(first, at, sig, now()) {
				break
			}
		}
		restore()
		cancelAbandon()
	}()
	return stop, abandon
}

// repeatWindow is how soon after the first the same signal counts as the
// same request: timeout(1) and a terminal signal the process and then
// its group, so one request arrives twice within microseconds.
const repeatWindow = time.Second

// sameRequest reports whether sig, received at now, repeats the signal
// first received at firstAt rather than asking for the drain to be
// given up: the same signal within repeatWindow.
func sameRequest(first os.Signal, firstAt time.Time, sig os.Signal, now time.Time) bool {
	return sig == first && now.Sub(firstAt) < repeatWindow
}

// errDrainAbandoned is the failed_reason of a job whose handler a second
// signal cut short; the job is retried while attempts remain.
var errDrainAbandoned = errors.New(worker.ReasonShutdown + ": drain abandoned on a second signal")

// abandonable runs handler with a context that a second signal (abandon)
// cancels too, and turns the error of a handler cut short that way into a
// retry with errDrainAbandoned. The worker's drain then ends as soon as the
// handlers return, and records their jobs as released.
func abandonable[T any](abandon context.Context, handler func(context.Context, worker.Job[T]) error) func(context.Context, worker.Job[T]) error {
	return func(ctx context.Context, job worker.Job[T]) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(abandon, func() { cancel(errDrainAbandoned) })()
		err := handler(ctx, job)
		if err != nil && errors.Is(context.Cause(ctx), errDrainAbandoned) {
			return worker.RetryJob(errDrainAbandoned)
		}
		return err
	}
}
