// Package tickworktest helps users of tickwork test their own code: that it
// enqueues the jobs it should, and that their handlers do what they should
// with them, retries and timeouts included. It needs no database and never
// sleeps: a Kit holds an in-memory store and a virtual clock that moves
// only when the test, or Drain, moves it.
//
//	kit := tickworktest.New(t, tickworktest.Options{})
//	signup(ctx, kit.Client(), "ada")       // the code under test enqueues
//	tickworktest.RequireEnqueued(t, kit.Store(), tickworktest.Want{
//		Queue: "welcome", Payload: map[string]any{"user": "ada"},
//	})
//	registerHandlers(kit.Worker())          // the application's own worker.Handle calls
//	attempt := kit.WorkOne()                // runs the welcome job's handler here
//	kit.Drain()                             // runs what is left, retries and all
//
// WorkOne and Drain run handlers exactly as a worker does — middleware,
// timeouts, panic recovery, the decision rules — and record the results in
// the store with the worker's own code, so a retry is a new scheduled row
// at the backoff delay. RequireEnqueuedTx checks inside a transaction that
// has not committed, and works with any store, PostgreSQL too.
//
// Import it from tests only: it imports package testing.
package tickworktest
