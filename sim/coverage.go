package sim

// Mark is a rare state a seed reached. The summary counts, per mark, how
// many seeds reached it: a mark no seed reaches is a gap in the simulator.
type Mark int

// The coverage marks.
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
	MarkLingerExpired                    // results were recorded after the linger ran out
	MarkCancelByNotification             // a cancel's notification stopped a running handler
	MarkCancelByJobPass                  // a job pass found a running handler's row cancelled
	MarkOwnBound                         // a chain ended at its queue's or its job's own bound
	MarkSnoozeCap                        // a snooze past MaxSnoozes failed its job
	MarkScheduleSkipped                  // a schedule skipped a cron time: another row held its key
	MarkRateBound                        // a reservation brought a queue's starts in its rate's window to the rate
	MarkLimitBound                       // a reservation brought a queue limited to limitMarkLeast (3) jobs or more to its limit
	MarkTxOverlap                        // interleaving: a round trip went while another process's transaction was open
	MarkLockWait                         // interleaving: the server held a round trip on another transaction's lock
	MarkDeadlock                         // interleaving: a cycle of lock waits was broken
	MarkTripSevered                      // interleaving: a connection closed with a round trip outstanding
	MarkTripTerminated                   // interleaving: a parked connection's server process was terminated
	MarkCommitAnswerLost                 // interleaving: a COMMIT's answer was lost
	numMarks
)

var markNames = [numMarks]string{
	"leader change with jobs in flight",
	"lease expired during duties",
	"fenced result",
	"retry reached the maximum",
	"shutdown with jobs in flight",
	"rescued job",
	"ambiguous commit during reserve",
	"ambiguous commit during complete",
	"stall past the dead threshold",
	"drain deadline reached",
	"reservation recovered after ambiguous commit",
	"declared-dead worker re-registered",
	"shutdown given up, jobs left to a leader",
	"notification ignored by a full worker",
	"cancel grace expired, handler still running",
	"results recorded after the linger",
	"running handler cancelled by a notification",
	"running handler cancelled by a job pass's check",
	"retries ended at a queue's or job's own bound",
	"snooze past MaxSnoozes failed its job",
	"schedule skipped a cron time for its unique key",
	"queue's rate reached by its starts",
	"queue's limit of three or more reached",
	"interleaved: two processes' transactions open",
	"interleaved: a round trip waited on a lock",
	"interleaved: a deadlock broken",
	"interleaved: connection closed mid-transaction",
	"interleaved: parked connection terminated",
	"interleaved: COMMIT's answer lost",
}

// firstInterleaved is the first mark only an interleaved run reaches.
const firstInterleaved = MarkTxOverlap

// Interleaved reports whether only runs that interleave transactions
// (simulate -store pg -interleave) can reach m.
func (m Mark) Interleaved() bool { return m >= firstInterleaved }

// String returns the mark's description.
func (m Mark) String() string { return markNames[m] }

// Marks is the set of marks one seed reached.
type Marks uint32

// Has reports whether m is in the set.
func (s Marks) Has(m Mark) bool { return s&(1<<m) != 0 }

func (s *Marks) set(m Mark) { *s |= 1 << m }

// AllMarks returns every mark in order.
func AllMarks() []Mark {
	out := make([]Mark, numMarks)
	for i := range out {
		out[i] = Mark(i)
	}
	return out
}
