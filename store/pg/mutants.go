package pg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tickwork/tickwork/internal/mutant"
)

// statements are the store's statements that a planted bug
// (internal/mutant) rewrites, built once when the store opens with its
// schema filled in. In a normal build they are the statements as written
// and nothing below runs. Built with the mutants tag, every planted
// bug's edit is checked to find its text, selected or not, so that a
// statement whose text drifted panics at open instead of leaving its bug
// silently unplanted; the selected bug's edit is then made.
type statements struct {
	reserve      string // reserveSQL
	keyedReserve string // keyedReserveSQL
	plainReserve string // plainReserveSQL
	// The same, taking sequence heads too (reserve_sequence.go).
	seqReserve, seqKeyedReserve, seqPlainReserve string
	limitLock                                    string // limitLockSQL
	takeLease                                    string // takeLeaseSQL
	renewLease                                   string // renewLeaseSQL
	expireLease                                  string // expireLeaseSQL
	releaseLease                                 string // releaseLeaseSQL
	dutyLock                                     string // dutyLockSQL
	passLive                                     string // liveSQL, as the job pass sends it

	// The completions, without and with outputs, by mode (completionSQL).
	completions [2][numCompletionModes]string
}

// dutyLockSQL serializes the leaders' duty transactions of one schema.
const dutyLockSQL = "SELECT pg_advisory_xact_lock($1)"

// newStatements builds the statements with fill naming the schema.
func newStatements(fill func(string) string) statements {
	st := statements{
		reserve:         fill(reserveSQL),
		keyedReserve:    fill(keyedReserveSQL),
		plainReserve:    fill(plainReserveSQL),
		seqReserve:      fill(sequencedVariant(reserveSQL)),
		seqKeyedReserve: fill(sequencedVariant(keyedReserveSQL)),
		seqPlainReserve: fill(sequencedVariant(plainReserveSQL)),
		limitLock:       fill(limitLockSQL),
		takeLease:       fill(takeLeaseSQL),
		renewLease:      fill(renewLeaseSQL),
		expireLease:     fill(expireLeaseSQL),
		releaseLease:    fill(releaseLeaseSQL),
		dutyLock:        fill(dutyLockSQL),
		passLive:        fill(liveSQL),
	}
	for i, modes := range completionSQL {
		for m, sql := range modes {
			st.completions[i][m] = fill(sql)
		}
	}
	if mutant.Enabled {
		st.plant(plantedEdits)
	}
	return st
}

// completion is the statement completing jobs, with outputs or not, in
// mode: CompleteJobs's (completeDeleting) or a job pass's.
func (st *statements) completion(outputs bool, mode completionMode) string {
	if outputs {
		return st.completions[1][mode]
	}
	return st.completions[0][mode]
}

// plantedEdit is one planted bug of store/pg's SQL: in the statement at,
// the text old becomes new.
type plantedEdit struct {
	bug      string
	at       func(*statements) *string
	old, new string
}

// plantedEdits are store/pg's planted bugs that edit a statement's text
// (mutants_split.go has those that split a statement in two). Most need
// two transactions in flight together to show, so only the interleaved
// simulation (simulate -store pg -interleave) catches them; the serial
// one catches those mutant.PGSerial names.
var plantedEdits = append([]plantedEdit{
	// pg-no-skip-locked: a reservation's scan of the jobs (not of the rate
	// slots) waits for the rows another transaction holds.
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.reserve }, jobsSkipLocked, jobsLocked},
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.plainReserve }, jobsSkipLocked, jobsLocked},
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.keyedReserve }, jobsSkipLocked, jobsLocked},
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.seqReserve }, jobsSkipLocked, jobsLocked},
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.seqKeyedReserve }, jobsSkipLocked, jobsLocked},
	{mutant.PGNoSkipLocked, func(s *statements) *string { return &s.seqPlainReserve }, jobsSkipLocked, jobsLocked},
	// pg-sequence-skips-locked: the head check passes over the available
	// rows of the queue, which the lookup, it reasons, would have found
	// first; but the lookup skips the rows other transactions hold.
	{mutant.PGSequenceSkipsLocked, func(s *statements) *string { return &s.seqReserve }, headBefore, headBeforeSkipsLocked},
	{mutant.PGSequenceSkipsLocked, func(s *statements) *string { return &s.seqKeyedReserve }, headBefore, headBeforeSkipsLocked},
	{mutant.PGSequenceSkipsLocked, func(s *statements) *string { return &s.seqPlainReserve }, headBefore, headBeforeSkipsLocked},
	// pg-pause-all-plain-ignored: the plain reservation's condition on the
	// pause-all row (reservable) never holds back. One transaction shows
	// it: the serial simulation on PostgreSQL plants and catches it
	// (mutant.PGSerial).
	{mutant.PGPauseAllPlainIgnored, func(s *statements) *string { return &s.plainReserve }, pausedAllRow, pausedAllRowIgnored},
	{mutant.PGPauseAllPlainIgnored, func(s *statements) *string { return &s.seqPlainReserve }, pausedAllRow, pausedAllRowIgnored},
	// pg-split-lease: the lease that the SELECT before found free is
	// written without a re-check, overwriting one another transaction took
	// meanwhile.
	{mutant.PGSplitLease, func(s *statements) *string { return &s.takeLease }, "ON CONFLICT (singleton) DO NOTHING",
		"ON CONFLICT (singleton) DO UPDATE SET worker_id = EXCLUDED.worker_id, elected_at = EXCLUDED.elected_at, expires_at = EXCLUDED.expires_at"},
	// pg-renew-overwrites: the renewal writes the holder and expiry that
	// its SELECT found its own, matching the lease whoever holds it.
	{mutant.PGRenewOverwrites, func(s *statements) *string { return &s.renewLease }, "SET expires_at =", "SET worker_id = $2, expires_at ="},
	{mutant.PGRenewOverwrites, func(s *statements) *string { return &s.renewLease }, "WHERE worker_id = $2 AND", "WHERE"},
	// pg-expire-unchecked: the take-over deletes the lease that a SELECT
	// before found expired (leaseExpiredSplit), whatever it is now.
	{mutant.PGExpireUnchecked, func(s *statements) *string { return &s.expireLease },
		"WHERE expires_at <= coalesce($1::timestamptz, now())", "WHERE coalesce($1::timestamptz, now()) IS NOT NULL"},
	// pg-resign-unchecked: the resign deletes the lease that a SELECT
	// before found its own (ownLeaseSplit), whoever holds it now.
	{mutant.PGResignUnchecked, func(s *statements) *string { return &s.releaseLease }, "WHERE worker_id = $1", "WHERE $1::uuid IS NOT NULL"},
	// pg-duties-unserialized: no duty lock, so two leaders' duty
	// transactions may run together.
	{mutant.PGDutiesUnserialized, func(s *statements) *string { return &s.dutyLock }, "pg_advisory_xact_lock($1)", "$1::bigint"},
	// pg-limit-count-unlocked: a limited queue's running jobs are counted
	// without its limit lock, so two reservations may count the same free
	// places and both fill them.
	{mutant.PGLimitCountUnlocked, func(s *statements) *string { return &s.limitLock },
		"pg_advisory_xact_lock($1, hashtext(d.queue))::text", "left($1::integer::text, 0)"},
	// pg-key-count-unlocked: a queue with a per-key limit and no limit
	// never takes its limit lock, so two reservations may count the same
	// free places of a key and both fill them.
	{mutant.PGKeyCountUnlocked, func(s *statements) *string { return &s.limitLock },
		"ctl.key_limit IS NOT NULL OR ctl.limit_overrun OR $3 > e.ended", "ctl.max_running IS NOT NULL AND (ctl.limit_overrun OR $3 > e.ended)"},
	// pg-pass-live-unlocked: the job pass reads its worker's liveness
	// without the share lock that keeps a leader from declaring the worker
	// dead until the pass commits.
	{mutant.PGPassLiveUnlocked, func(s *statements) *string { return &s.passLive }, " FOR SHARE)", ")"},
}, slices.Concat(
	// pg-complete-unchecked: every completion, CompleteJobs's and a job
	// pass's, completes the rows whatever their status and worker (the
	// worker's id still bound, to keep the statement's parameters).
	inEveryCompletion(mutant.PGCompleteUnchecked, completeCheck, "$3::uuid IS NOT NULL"),
	// pg-release-skipped: release_children is called only when a
	// completed row is not awaited.
	inEveryCompletion(mutant.PGReleaseSkipped, releaseWhenAwaited, releaseWhenNotAwaited),
)...)

// inEveryCompletion is bug's edit of old into new in each completion
// statement (completionSQL).
func inEveryCompletion(bug, old, new string) []plantedEdit {
	var edits []plantedEdit
	for i := range completionSQL {
		for m := range numCompletionModes {
			edits = append(edits, plantedEdit{bug, func(s *statements) *string { return &s.completions[i][m] }, old, new})
		}
	}
	return edits
}

// The texts the planted bugs edit.
const (
	jobsSkipLocked = "FOR UPDATE SKIP LOCKED) AS c" // a reservation's scan of the jobs (pickJobs)
	jobsLocked     = "FOR UPDATE) AS c"
	completeCheck  = "status >= 'running' AND status <= 'running' AND " + startedByIs3
	// pausedAllRow is the end of reservable's condition on the pause-all row.
	pausedAllRow        = ".queues WHERE name = '')"
	pausedAllRowIgnored = ".queues WHERE name = '' AND false)"
	// releaseWhenAwaited is childrenReleased's condition.
	releaseWhenAwaited    = "WHERE EXISTS (SELECT FROM done WHERE awaited)"
	releaseWhenNotAwaited = "WHERE EXISTS (SELECT FROM done WHERE NOT awaited)"
)

// plant checks that every edit finds its text, panicking otherwise, and
// makes the edits of the selected bug.
func (s *statements) plant(edits []plantedEdit) {
	for _, e := range edits {
		stmt := e.at(s)
		if !strings.Contains(*stmt, e.old) {
			panic(fmt.Sprintf("store/pg: planted bug %s: its statement no longer contains %q:\n%s", e.bug, e.old, *stmt))
		}
		if mutant.On(e.bug) {
			*stmt = strings.Replace(*stmt, e.old, e.new, 1)
		}
	}
}
