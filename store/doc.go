// Package store is the contract between tickwork's worker and the database
// that holds the queue. Two implementations satisfy it: store/mem, a
// deterministic in-memory store for tests and simulation, and store/pg, the
// PostgreSQL store used in production. store/storetest holds the one
// conformance suite that both must pass.
//
// The store is the single authority for persisted time: every timestamp it
// writes or compares is the store's now (Tx.Now), never a worker's clock.
// Stores round their time to the microsecond, PostgreSQL's precision, so that
// both implementations produce identical rows.
//
// Stores never generate identifiers: callers build ULIDs from Tx.Now and their
// own seeded source (clockrng.NewULID) and pass them in, which keeps runs
// reproducible from a seed.
package store
