// Package engine is what runs beneath a tickwork worker: the queue's logic
// (Core: one tick at a time given the local time, leader duties, release
// and shutdown) and the runner's policy (Policy: every decision of the
// loop around it as a step function, inputs in, actions out). Neither
// reads a clock, starts a goroutine or draws global randomness; they block
// only on the store. worker.Run carries the policy's actions out in
// production, the simulator (sim/) on its virtual event queue. Event and
// Observer report what they did; Config is the worker's configuration.
package engine
