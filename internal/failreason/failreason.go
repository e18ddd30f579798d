// Package failreason holds the failed_reason texts that the worker's
// engine writes and that the property checkers (props) recognise, so
// that both sides use one definition: a text changed in the engine
// changes what the checkers look for. It imports nothing, so that props
// can use it without importing what it checks.
package failreason

// Shutdown is the failed_reason of a job released at a graceful shutdown
// because it had not returned by the drain deadline.
const Shutdown = "worker shut down"

// BatchGone begins the failed_reason of a callback's attempt whose batch
// no longer exists: the store deleted it while the callback still had a
// row to run.
const BatchGone = "worker: the batch of this callback is gone"
