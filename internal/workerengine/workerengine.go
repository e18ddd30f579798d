// Package workerengine reaches the engine side of a worker.Worker: what a
// package of this module that drives a core of its own (tickworktest)
// needs from a worker, kept out of go doc ./worker, which shows the
// application's API. Package worker fills it in when it is initialised;
// worker does not import its users, so imports stay one-way.
package workerengine

import (
	"context"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// Engine is the engine side of one worker.
type Engine interface {
	// Execute runs one attempt of job inline, with the handler registered
	// for its queue, exactly as Run does: middleware, the handler's
	// timeout on the worker's clock, panic recovery, logs and telemetry.
	// It writes nothing to the store; the caller reports the result to
	// its core (engine.InJobFinished), which records it. A queue without
	// a handler fails the job, as Run would.
	Execute(ctx context.Context, job store.Job) engine.Result
	// CoreConfig returns the configuration Run gives its core: the
	// worker's Config with the queues of the handlers when it names none,
	// and each handler's retry policy in Policies.
	CoreConfig() engine.Config
}

// Of returns the engine side of w, which must be a *worker.Worker (it
// panics otherwise). Set by package worker.
var Of func(w any) Engine
