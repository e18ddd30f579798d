package pg

import (
	"strings"

	"github.com/tickwork/tickwork/internal/mutant"
)

// The planted bugs of store/pg (internal/mutant), each a statement chosen
// instead of the right one. Every one needs two transactions in flight
// together to show, so only the interleaved simulation (simulate -store pg
// -interleave) catches them. In a normal build mutant.On is the constant
// false and each function returns its statement as written.

// reserveStatement is reserveSQL; pg-no-skip-locked drops SKIP LOCKED from
// its scan of the jobs (not of the rate slots), so that a reservation waits
// for the rows another transaction holds.
func reserveStatement() string {
	if mutant.On(mutant.PGNoSkipLocked) {
		return dropJobsSkipLocked(reserveSQL)
	}
	return reserveSQL
}

// dropJobsSkipLocked removes SKIP LOCKED from a reservation's scan of the
// jobs (pickJobs).
func dropJobsSkipLocked(sql string) string {
	return strings.Replace(sql, "FOR UPDATE SKIP LOCKED) AS c", "FOR UPDATE) AS c", 1)
}

// takeLeaseStatement is takeLeaseSQL; pg-split-lease writes the lease
// that the SELECT before it found free without re-checking, overwriting
// one another transaction took meanwhile.
func takeLeaseStatement() string {
	if mutant.On(mutant.PGSplitLease) {
		return strings.Replace(takeLeaseSQL, "ON CONFLICT (singleton) DO NOTHING",
			"ON CONFLICT (singleton) DO UPDATE SET worker_id = EXCLUDED.worker_id, elected_at = EXCLUDED.elected_at, expires_at = EXCLUDED.expires_at", 1)
	}
	return takeLeaseSQL
}

// dutyLockStatement takes the duty lock; pg-duties-unserialized takes
// none, so that two leaders' duty transactions may run together.
func dutyLockStatement() string {
	if mutant.On(mutant.PGDutiesUnserialized) {
		return "SELECT $1::bigint"
	}
	return "SELECT pg_advisory_xact_lock($1)"
}

// completeUnchecked is completion's statement; pg-complete-unchecked
// completes the rows whatever their status and worker (the worker's id
// still bound, to keep the statement's parameters).
func completeUnchecked(sql string) string {
	if mutant.On(mutant.PGCompleteUnchecked) {
		return strings.Replace(sql, "status >= 'running' AND status <= 'running' AND "+startedByIs3, "$3::uuid IS NOT NULL", 1)
	}
	return sql
}

// limitLockStatement is limitLockSQL; pg-limit-count-unlocked counts a
// limited queue's running jobs without its limit lock, so that two
// reservations may count the same free places and both fill them.
func limitLockStatement() string {
	if mutant.On(mutant.PGLimitCountUnlocked) {
		return strings.Replace(limitLockSQL, "pg_advisory_xact_lock($1, hashtext(d.queue))::text", "left($1::integer::text, 0)", 1)
	}
	return limitLockSQL
}
