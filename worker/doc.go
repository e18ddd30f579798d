// Package worker runs tickwork jobs: it reserves them from a store.Store,
// hands them to typed handlers, records their results with retries and
// backoff, and, on the worker elected leader, enqueues scheduled jobs,
// rescues the jobs of dead workers and cleans up old rows.
//
// Applications use Worker (New, Handle, Run), Client (Enqueue, EnqueueMany,
// EnqueuePgxTx in the application's own pgx transaction, EnqueueTx in a
// store's), Job, Config and the decisions (RetryJob, FailJob).
//
// Every option is named With and what it sets: WithQueue, WithPriority,
// WithScheduledAt and the others for an enqueue (EnqueueOption);
// WithTimeout, WithMiddleware, WithQueueMaxAttempts and the retry options
// for a handler (HandlerOption).
//
// Beneath Worker is worker/engine: the queue's logic (engine.Core) and
// the runner's every decision as a step function (engine.Policy), which do
// no I/O but the store's. Worker.Run is a thin loop that carries the
// policy's actions out with goroutines, timers and the store's listener;
// the simulator (sim/) carries out the same actions on its event queue, so
// it runs exactly the code that runs in production. Options.Observer
// receives the engine's events.
package worker
