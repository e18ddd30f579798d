// Package pg is the PostgreSQL implementation of store.Store, built on
// pgx/v5 and its connection pool.
//
// All tables live in one schema (default "tickwork"); Migrate creates or
// upgrades it from migrations embedded in the binary, under an advisory lock
// so that many workers starting at once are safe. Every statement names its
// tables with the schema, so InPgxTx works inside a caller's transaction on
// any connection, whatever its search_path.
//
// Time follows the nullable-now pattern: every statement that writes or
// compares a time takes the store's now as a parameter and falls back to the
// database's now() when it is NULL. Production leaves Options.Now nil, so
// the database clock is the single authority; tests and the differential
// simulation supply their own clock and get rows identical to store/mem's.
//
// Notifications go out with pg_notify in the transaction that makes a job
// available, gives up the lease or cancels a running job (so they are
// delivered only if it commits) on the channels <schema>_available
// (payload: the queue), <schema>_leader_stepdown and <schema>_cancel
// (payload: the job's id as uuid text).
package pg
