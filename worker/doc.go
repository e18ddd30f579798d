// Package worker runs tickwork jobs: it reserves them from a store.Store,
// hands them to typed handlers, records their results with retries and
// backoff, and, on the worker elected leader, enqueues scheduled jobs,
// rescues the jobs of dead workers and cleans up old rows.
//
// The package has two layers. Core is the queue's logic: one loop iteration
// at a time (Tick), driven by a caller that supplies the local time. It never
// reads a clock, never starts a goroutine and blocks only on the store, so the
// simulator (sim/) drives exactly the code that runs in production. Worker is
// the production runner around it: it waits for the poll timer, finished jobs
// and store notifications, runs handlers in goroutines with timeouts, and
// drains them on shutdown. Client enqueues jobs.
package worker
