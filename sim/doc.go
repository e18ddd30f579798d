// Package sim is tickwork's deterministic simulator. It drives the
// production runner's policy (engine.Policy) and the real worker core
// beneath it against a real store (store/mem by default; any Backend whose
// clock it supplies), carrying out the policy's actions on its event queue
// where worker.Run uses goroutines and timers, through crashes, stalls,
// clock drift and jumps, store errors before, at and after the commit,
// outages, lost and late notifications, graceful shutdowns and misbehaving
// handlers, and checks the queue's promises (props) after every step and,
// after a quiescence phase, at the end.
//
// Everything a run does follows from its Scenario, itself drawn from one
// seed (Draw): one event queue ordered by (virtual time, sequence number),
// one master clockrng.Rand split into named children per worker, per fault
// kind and per job, so that a draw added in one place does not shift the
// others. Worker processes keep their own local clocks; the store keeps
// true time. Core calls run on one coroutine per process (iter.Pull) so a
// call waiting on store latency parks while the others go on; coroutines
// only hand control to each other, so the run is one logical thread and no
// goroutine scheduling decides anything. The trace (one line per event,
// virtual time only) is byte-identical on every run and machine; its hash is
// compared against testdata/golden_traces.txt.
//
// A worker's job pass runs as the store's own (store.JobPasser, store/pg's
// pipelined batch) when the Backend's store has one, interleaved or not,
// so the pass production sends every tick runs under the simulator too;
// on the in-memory store it runs through InTx, with the same faults drawn
// (faultpass.go).
//
// With Options.Interleave (simulate -store pg -interleave) each process's
// transactions run instead on a gated PostgreSQL store of its own, on a
// goroutine, while the process's coroutine waits; every round trip that
// parks becomes an event at a virtual time drawn from the seed, and the
// simulator decides only once the Interleaver has settled, so transactions
// of different processes overlap in an order the seed alone chooses (see
// Interleaver).
package sim
