package engine

import (
	"context"
	"errors"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/failreason"
	"github.com/tickwork/tickwork/internal/mutant"
)

// ErrJobCancelled is the cause (context.Cause) with which a handler's
// context is cancelled when its job is cancelled while it runs: the job
// will neither complete nor be retried, whatever the handler returns.
var ErrJobCancelled = errors.New("worker: the job was cancelled")

// ErrShutdownCancel is the cause with which a handler's context is
// cancelled at the drain deadline of a graceful shutdown, or when the
// drain is abandoned: the job is released and retried while attempts
// remain.
var ErrShutdownCancel = errors.New(failreason.Shutdown + ": handler cut short at the end of the drain")

// Contexts are the contexts a runner's handlers run under, and both
// drivers carry their cancellations out through it, so which context a
// handler gets and when it ends is decided here once. A handler's context
// does not end with the request to stop (Run's ctx, a signal): it keeps
// running through the drain. It ends with cause ErrJobCancelled when its
// job's row is cancelled (ActCancelJobs), with ErrShutdownCancel at the
// drain deadline or an abandoned drain (ActCancelRunning; the handlers
// started later start cancelled), and when the runner exits or its
// handler returned. Contexts starts no goroutine and reads no clock.
type Contexts struct {
	root   context.Context
	cancel context.CancelCauseFunc
	byJob  map[ulid.ULID]context.CancelCauseFunc
}

// NewContexts returns the handler contexts of a runner stopped by stop:
// they carry stop's values but not its cancellation.
func NewContexts(stop context.Context) *Contexts {
	parent := context.WithoutCancel(stop)
	if mutant.On(mutant.ContextFollowsStop) {
		parent = stop
	}
	root, cancel := context.WithCancelCause(parent)
	return &Contexts{root: root, cancel: cancel, byJob: map[ulid.ULID]context.CancelCauseFunc{}}
}

// Start returns the context of the handler of job id.
func (c *Contexts) Start(id ulid.ULID) context.Context {
	ctx, cancel := context.WithCancelCause(c.root)
	c.byJob[id] = cancel
	return ctx
}

// Finished releases the context of job id, whose handler returned.
func (c *Contexts) Finished(id ulid.ULID) {
	if cancel, ok := c.byJob[id]; ok {
		cancel(nil)
		delete(c.byJob, id)
	}
}

// Carry cancels what a (ActCancelRunning, ActCancelJobs or ActExit)
// cancels; other actions cancel nothing.
func (c *Contexts) Carry(a Action) {
	switch a.Kind {
	case ActCancelRunning:
		c.cancel(ErrShutdownCancel)
	case ActCancelJobs:
		for _, id := range a.JobIDs {
			if cancel, ok := c.byJob[id]; ok {
				cancel(ErrJobCancelled)
			}
		}
	case ActExit: // a handler still running has nothing left to report to
		c.cancel(ErrShutdownCancel)
	}
}
