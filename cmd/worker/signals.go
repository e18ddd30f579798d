package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/tickwork/tickwork/worker"
)

// shutdownSignals turns SIGTERM and SIGINT into the two stages of a
// shutdown: the first cancels stop (stop reserving, drain), the second
// cancels abandon (give up the drain: cut the running jobs short and
// release them). The default handling is back before abandon is
// cancelled, so a third signal kills the process at once.
func shutdownSignals() (stop, abandon context.Context) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	stop, cancelStop := context.WithCancel(context.Background())
	abandon, cancelAbandon := context.WithCancel(context.Background())
	go func() {
		<-ch
		cancelStop()
		<-ch
		signal.Stop(ch)
		cancelAbandon()
	}()
	return stop, abandon
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
