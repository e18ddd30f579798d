// Package mem is a deterministic in-memory implementation of store.Store for
// tests and the simulator.
//
// Its time is a supplied function (the simulator's virtual time), truncated
// to the microsecond like PostgreSQL's. Transactions are serialised by one
// mutex and are all-or-nothing: every row write is logged with its previous
// value and undone in reverse on error or panic. Nothing depends on map
// iteration order: every multi-row result and every batch of writes is
// ordered as documented in store and store/SEMANTICS.md, so one seed always
// produces the same rows and the same commit history.
//
// Indexes keep the hot operations off full scans: a heap of available ids per
// queue (Reserve), a heap of scheduled rows by scheduled_at (promotion), a
// heap of terminal rows by end time (retention) and the running jobs of each
// worker (fencing, rescue). The heaps drop stale entries lazily when they
// reach the top.
package mem
