// Package worker runs tickwork jobs: it reserves them from a store.Store,
// hands them to typed handlers, records their results with retries and
// backoff, and, on the worker elected leader, enqueues scheduled jobs,
// rescues the jobs of dead workers and cleans up old rows.
//
// Applications use Worker (New, Handle, Run), Client (Enqueue, EnqueueTx,
// EnqueueMany), Job and the decisions (RetryJob, FailJob).
//
// Beneath Worker are three layers that do no I/O of their own but the
// store's. Core is the queue's logic: one loop iteration at a time, given
// the local time; leader duties; release and shutdown. Policy is the
// runner's every decision as a step function (Step: inputs such as a timer,
// a finished job, a notification or a stop in; actions such as a store
// call, job starts, timers or cancellation out). Worker.Run is a thin loop
// that carries the actions out with goroutines, timers and the store's
// listener; the simulator (sim/) carries out the same actions on its event
// queue, so it runs exactly the policy and core that run in production.
// Event and Observer report what the core and the policy did.
package worker
