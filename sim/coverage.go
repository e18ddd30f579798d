package sim

// Mark is a rare state a seed reached. The summary counts, per mark, how
// many seeds reached it: a mark no seed reaches is a gap in the simulator.
type Mark int

// The coverage marks. A new mark goes anywhere in the list, with its
// description in markNames (and in interleavedOnly if only interleaved runs
// reach it): everything else refers to marks by name.
const (
	MarkLeaderChangeInFlight Mark = iota // the lease changed hands while jobs ran
	MarkLeaseExpiredInDuties             // the duty re-check found the lease gone
	MarkFencedResult                     // a result was refused by the fence
	MarkRetryAtMax                       // an attempt at MaxRetries failed: the chain ended
	MarkShutdownInFlight                 // a graceful shutdown began with jobs running
	MarkRescued                          // a dead worker's job was marked lost
	MarkAmbiguousReserve                 // a reserve committed but its caller saw an error
	MarkAmbiguousComplete                // a result committed but its caller saw an error
	MarkStallPastDead                    // a stalled worker was declared dead
	MarkDrainDeadline                    // a drain deadline passed with jobs running
	MarkRecovered                        // a worker recovered jobs from an unseen reserve
	MarkReregistered                     // a worker declared dead registered again
	MarkShutdownGaveUp                   // the runner gave a failed shutdown up; a leader rescues
	MarkNotifyIgnoredFull                // the runner ignored a notification: every slot busy
	MarkGraceExpired                     // the cancel grace ended with a handler still running
	MarkHandlerHung                      // a handler the drain deadline cancelled hung until its process exits
	MarkLingerExpired                    // results were recorded after the linger ran out
	MarkCancelByNotification             // a cancel's notification stopped a running handler
	MarkCancelByJobPass                  // a job pass found a running handler's row cancelled
	MarkOwnBound                         // a chain ended at its queue's or its job's own bound
	MarkSnoozeCap                        // a snooze past MaxSnoozes failed its job
	MarkScheduleSkipped                  // a schedule skipped a cron time: another row held its key
	MarkRateBound                        // a reservation brought a queue's starts in its rate's window to the rate
	MarkLimitBound                       // a reservation brought a queue limited to limitMarkLeast (3) jobs or more to its limit
	MarkKeyLimitHeld                     // a reservation left a ready job waiting for its key's limit
	MarkSequenceHalted                   // a job failed for good halted its sequence with a later job waiting
	MarkSequenceReleased                 // an operator released a halted sequence (a skip)
	MarkDependentReleased                // a job that waited for parents was released when they completed
	MarkDependentCancelled               // a job that waited for parents was cancelled: one ended without completing
	MarkBatchReleased                    // a batch's callback was released: every member ended
	MarkBatchAfterRescue                 // a batch's callback was released after a member was rescued from a dead worker
	MarkBatchCancelledMember             // a batch's callback was released after a member was cancelled
	MarkBatchRetriedMember               // a batch's callback was released after a member was retried
	MarkDeleteRefusedRunning             // an operator's delete of a job whose handler ran was refused
	MarkBulkBatches                      // a bulk action changed jobs in two batches or more
	MarkBulkRefusedRunning               // a bulk delete of running jobs was refused
	MarkBulkDryRun                       // a bulk dry run counted jobs and changed none
	MarkBulkRetried                      // a bulk retry gave jobs that failed for good new attempts
	MarkDeadLettered                     // a job that failed for good moved to its queue's dead-letter queue
	MarkRedriven                         // a dead-lettered job was redriven back to its queue
	MarkCompletionDeleted                // a completion on a queue without history deleted its job's row
	MarkCompletionKept                   // a completion on a queue without history kept its row: something needed it
	MarkRetentionBatchFull               // a leader pass deleted a full batch of old jobs: the sweep goes on at the next pass
	MarkRetentionKept                    // a leader pass that applied retention left an old row every store keeps
	MarkTxOverlap                        // interleaving: a round trip went while another process's transaction was open
	MarkLockWait                         // interleaving: the server held a round trip on another transaction's lock
	MarkDeadlock                         // interleaving: a cycle of lock waits was broken
	MarkTripSevered                      // interleaving: a connection closed with a round trip outstanding
	MarkTripTerminated                   // interleaving: a parked connection's server process was terminated
	MarkCommitAnswerLost                 // interleaving: a COMMIT's answer was lost
	MarkRenewBesideTakeOver              // interleaving: the lease was taken over while its holder's renewal was in flight
	MarkResignBesideLease                // interleaving: a resign and another process's lease transaction in flight together
	MarkLeaseContended                   // interleaving: the lease changed while two other processes' lease transactions were open
	MarkDutiesBesideLease                // interleaving: the lease changed while another process's duties were in flight
	MarkStopRepeated                     // a signal repeated within a moment was judged the same request
	MarkDrainAbandoned                   // a second request to stop gave a drain with jobs running up
	MarkStoreSilent                      // a shutdown met a silent store: its calls timed out
	MarkHalfOpen                         // a store call went unanswered until its deadline
	MarkVacuumHalfOpen                   // a vacuum went unanswered until its deadline
	MarkReadOnlyDropped                  // pooled: a connection on a read-only node was dropped, and the retry wrote
	MarkMissingKey                       // an encrypted job's attempt failed: its process lacked the job's key
	MarkOlderKey                         // an encrypted job was opened with a key older than its process's newest
	MarkCallbackReadBatch                // a batch's callback read its batch in the worker's handler path
	MarkTimeoutAfterEnd                  // a handler's timeout came after its context had ended otherwise
	MarkSuccessPastTimeout               // a handler that ignored its timeout returned success, which the worker kept
	MarkPipelinedPass                    // -store pg: a job pass ran as the store's own pipelined batch
	numMarks
)

// markNames describes each mark, keyed by the mark so that a mark added
// anywhere in the list keeps its own words.
var markNames = [numMarks]string{
	MarkLeaderChangeInFlight: "leader change with jobs in flight",
	MarkLeaseExpiredInDuties: "lease expired during duties",
	MarkFencedResult:         "fenced result",
	MarkRetryAtMax:           "retry reached the maximum",
	MarkShutdownInFlight:     "shutdown with jobs in flight",
	MarkRescued:              "rescued job",
	MarkAmbiguousReserve:     "ambiguous commit during reserve",
	MarkAmbiguousComplete:    "ambiguous commit during complete",
	MarkStallPastDead:        "stall past the dead threshold",
	MarkDrainDeadline:        "drain deadline reached",
	MarkRecovered:            "reservation recovered after ambiguous commit",
	MarkReregistered:         "declared-dead worker re-registered",
	MarkShutdownGaveUp:       "shutdown given up, jobs left to a leader",
	MarkNotifyIgnoredFull:    "notification ignored by a full worker",
	MarkGraceExpired:         "cancel grace expired, handler still running",
	MarkHandlerHung:          "handler hung past the drain deadline",
	MarkLingerExpired:        "results recorded after the linger",
	MarkCancelByNotification: "running handler cancelled by a notification",
	MarkCancelByJobPass:      "running handler cancelled by a job pass's check",
	MarkOwnBound:             "retries ended at a queue's or job's own bound",
	MarkSnoozeCap:            "snooze past MaxSnoozes failed its job",
	MarkScheduleSkipped:      "schedule skipped a cron time for its unique key",
	MarkRateBound:            "queue's rate reached by its starts",
	MarkLimitBound:           "queue's limit of three or more reached",
	MarkKeyLimitHeld:         "per-key limit held a job back",
	MarkSequenceHalted:       "sequence halted behind a failed job",
	MarkSequenceReleased:     "halted sequence released by an operator",
	MarkDependentReleased:    "dependent released by its parents' completion",
	MarkDependentCancelled:   "dependent cancelled by its parent",
	MarkBatchReleased:        "batch callback released",
	MarkBatchAfterRescue:     "batch callback after a rescued member",
	MarkBatchCancelledMember: "batch callback after a cancelled member",
	MarkBatchRetriedMember:   "batch callback after a retried member",
	MarkDeleteRefusedRunning: "delete of a running job refused",
	MarkBulkBatches:          "bulk action over several batches",
	MarkBulkRefusedRunning:   "bulk delete refused a running job",
	MarkBulkDryRun:           "bulk dry run",
	MarkBulkRetried:          "bulk retry of jobs failed for good",
	MarkDeadLettered:         "job dead-lettered",
	MarkRedriven:             "dead-lettered job redriven",
	MarkCompletionDeleted:    "completion deleted its row (history none)",
	MarkCompletionKept:       "completion kept a needed row (history none)",
	MarkRetentionBatchFull:   "retention pass deleted a full batch",
	MarkRetentionKept:        "retention pass left an old row stores keep",
	MarkTxOverlap:            "interleaved: two processes' transactions open",
	MarkLockWait:             "interleaved: a round trip waited on a lock",
	MarkDeadlock:             "interleaved: a deadlock broken",
	MarkTripSevered:          "interleaved: connection closed mid-transaction",
	MarkTripTerminated:       "interleaved: parked connection terminated",
	MarkCommitAnswerLost:     "interleaved: COMMIT's answer lost",
	MarkRenewBesideTakeOver:  "interleaved: lease taken over beside its renewal",
	MarkResignBesideLease:    "interleaved: a resign beside a lease transaction",
	MarkLeaseContended:       "interleaved: three processes' lease transactions",
	MarkDutiesBesideLease:    "interleaved: lease changed beside duties",
	MarkStopRepeated:         "signal repeated at once, one request",
	MarkDrainAbandoned:       "drain abandoned by a second signal",
	MarkStoreSilent:          "shutdown's store calls timed out, store silent",
	MarkHalfOpen:             "half-open: a call ended at its deadline",
	MarkVacuumHalfOpen:       "half-open: a vacuum ended at its deadline",
	MarkReadOnlyDropped:      "read-only connection dropped, the retry wrote",
	MarkMissingKey:           "job failed for a missing key",
	MarkOlderKey:             "job decrypted with an older key",
	MarkCallbackReadBatch:    "callback read its batch as it ran",
	MarkTimeoutAfterEnd:      "handler timeout after its context ended",
	MarkSuccessPastTimeout:   "success past the handler's timeout kept",
	MarkPipelinedPass:        "job pass sent as the store's pipelined batch",
}

// interleavedOnly holds the marks only runs that interleave transactions
// (simulate -store pg -interleave) can reach.
var interleavedOnly = [numMarks]bool{
	MarkTxOverlap:           true,
	MarkLockWait:            true,
	MarkDeadlock:            true,
	MarkTripSevered:         true,
	MarkTripTerminated:      true,
	MarkCommitAnswerLost:    true,
	MarkRenewBesideTakeOver: true,
	MarkResignBesideLease:   true,
	MarkLeaseContended:      true,
	MarkDutiesBesideLease:   true,
}

// Interleaved reports whether only runs that interleave transactions
// (simulate -store pg -interleave) can reach m.
func (m Mark) Interleaved() bool { return interleavedOnly[m] }

// String returns the mark's description.
func (m Mark) String() string { return markNames[m] }

// Marks is the set of marks one seed reached, a bit for each.
type Marks [(numMarks + 63) / 64]uint64

// Has reports whether m is in the set.
func (s Marks) Has(m Mark) bool { return s[m/64]&(1<<(m%64)) != 0 }

func (s *Marks) set(m Mark) { s[m/64] |= 1 << (m % 64) }

// AllMarks returns every mark in order.
func AllMarks() []Mark {
	out := make([]Mark, numMarks)
	for i := range out {
		out[i] = Mark(i)
	}
	return out
}
