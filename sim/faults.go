package sim

import (
	"fmt"
	"strings"
)

// FaultKind is one kind of trouble the simulator can inject. Each seed turns
// every kind on or off and draws its rate (swarm testing): a seed with few
// kinds on explores their interplay more deeply than one with all on.
type FaultKind int

// The fault kinds, in the fixed order they are drawn and printed. Rate
// meanings are given per kind.
const (
	Crash          FaultKind = iota // worker process dies; rate: per worker per minute
	Stall                           // worker process pauses; rate: per worker per minute
	StoreBefore                     // transaction fails before running; rate: per transaction
	StoreAbort                      // transaction runs, then rolls back with an error; rate: per transaction
	StoreAfter                      // transaction commits, then the caller sees an error; rate: per transaction
	Latency                         // a transaction waits before it starts; rate: per transaction
	Outage                          // the database refuses everything for a window; rate: windows per chaos phase
	NotifyLoss                      // a notification is not delivered; rate: per delivery
	NotifyDelay                     // a notification arrives late; rate: per delivery
	Drift                           // worker clocks run fast or slow; rate: largest |speed - 1|
	ClockJump                       // a worker clock jumps; rate: per worker per minute
	Shutdown                        // graceful shutdown with jobs in flight; rate: per worker per minute
	Cancel                          // an operator cancels a job; rate: per minute
	Burst                           // a burst of enqueues; rate: per minute
	Schedules                       // cron schedules; rate: how many
	Retention                       // short retention, so housekeeping deletes rows; rate: unused
	HandlerRetry                    // handlers ask for a retry; rate: weight among outcomes
	HandlerFail                     // handlers fail for good; rate: weight among outcomes
	HandlerPanic                    // handlers panic (recorded as retry); rate: weight among outcomes
	HandlerTimeout                  // handlers overrun their timeout; rate: weight among outcomes
	IgnoreCancel                    // handlers ignore cancellation; rate: probability per cancelled run
	Priorities                      // enqueued jobs get priorities; rate: share of jobs given one
	QueueControl                    // an operator pauses, resumes or limits a queue; rate: per minute
	Vacuum                          // the leader's vacuum duty is on; rate: its dead-row threshold
	HandlerSnooze                   // handlers snooze (worker.Snooze); rate: weight among outcomes
	QueueRate                       // an operator sets or removes a queue's rate limit; rate: per minute
	HalfOpen                        // a store call never answers until its deadline (half-open connection); rate: per transaction
	ReadOnly                        // a pooled connection lands on a node that takes no writes (failover); store/pg only; rate: per transaction
	KeyLimits                       // jobs get partition keys and an operator sets or removes per-key limits; rate: per minute
	Sequences                       // jobs join sequences and an operator releases halted ones; rate: per minute
	Dependencies                    // enqueued jobs wait for parent jobs; rate: share of jobs given parents
	Batches                         // enqueued jobs form batches with a callback; rate: share of enqueues made a batch
	Deletes                         // an operator deletes a job; rate: per minute
	DeadLetters                     // an operator sets or clears queues' dead-letter queues and redrives them; rate: per minute
	PauseAll                        // an operator pauses or resumes every queue at once; rate: per minute
	QueueChurn                      // a running worker removes one of its queues (drained as at shutdown) or adds it back; rate: per worker per minute
	Encryption                      // jobs are enqueued encrypted, a key joins mid-run, a process may lack one; rate: share of jobs encrypted
	Bulk                            // an operator retries, cancels or deletes every job a filter selects (worker.Client.Bulk); rate: per minute
	History                         // an operator sets queues' history to none (completions delete rows) or keep; rate: per minute
	numFaultKinds
)

var faultNames = [numFaultKinds]string{
	"crash", "stall", "store-before", "store-abort", "store-after", "latency", "outage",
	"notify-loss", "notify-delay", "drift", "clock-jump", "shutdown", "cancel", "burst",
	"schedules", "retention", "retry", "fail", "panic", "timeout", "ignore-cancel",
	"priorities", "queue-control", "vacuum", "snooze", "queue-rate", "half-open",
	"read-only", "key-limits", "sequences", "dependencies", "batches", "deletes", "dead-letters", "pause-all", "queue-churn",
	"encryption", "bulk", "history",
}

// String returns the kind's flag name, e.g. "store-after".
func (k FaultKind) String() string {
	if k >= 0 && k < numFaultKinds {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// ParseFaultKind returns the kind named s.
func ParseFaultKind(s string) (FaultKind, error) {
	for k, n := range faultNames {
		if n == s {
			return FaultKind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown fault kind %q; known: %s", s, strings.Join(faultNames[:], ", "))
}

// FaultKinds returns every kind in drawing order.
func FaultKinds() []FaultKind {
	ks := make([]FaultKind, numFaultKinds)
	for i := range ks {
		ks[i] = FaultKind(i)
	}
	return ks
}

// FaultOverrides forces fault kinds on or off whatever the seed draws.
// The zero value changes nothing.
type FaultOverrides struct {
	force [numFaultKinds]int8 // -1 off, +1 on, 0 as drawn
	// pooled: the store under test has a connection pool (store/pg), so
	// the kinds only a pool has (pooledKinds) may be drawn on.
	pooled bool
}

// pooledKinds are the kinds only a store with pooled connections can
// suffer: drawn off unless the overrides say the store has a pool, so that
// seeds on the in-memory store keep their traces.
var pooledKinds = [numFaultKinds]bool{ReadOnly: true}

// Pooled reports whether only a store with pooled connections can suffer
// faults of kind k (pooledKinds).
func (k FaultKind) Pooled() bool { return pooledKinds[k] }

// Pooled returns o for a run on a store with a connection pool (simulate
// -store pg without -interleave): the kinds of pooledKinds are then drawn
// like the others.
func (o FaultOverrides) Pooled() FaultOverrides {
	o.pooled = true
	return o
}

// ParseFaultOverrides reads a comma-separated list such as
// "-crash,+stall,latency": "-kind" turns a kind off, "+kind" or "kind" on.
// "-all" and "+all" set every kind, and later items refine them.
func ParseFaultOverrides(s string) (FaultOverrides, error) {
	var o FaultOverrides
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		v := int8(1)
		switch item[0] {
		case '-':
			v, item = -1, item[1:]
		case '+':
			item = item[1:]
		}
		if item == "all" {
			for k := range o.force {
				o.force[k] = v
			}
			continue
		}
		k, err := ParseFaultKind(item)
		if err != nil {
			return o, fmt.Errorf("-faults %q: %w", s, err)
		}
		o.force[k] = v
	}
	return o, nil
}

// Apply returns on as forced by the overrides for kind k.
func (o FaultOverrides) Apply(k FaultKind, on bool) bool {
	switch o.force[k] {
	case -1:
		return false
	case 1:
		return true
	}
	return on
}

// String renders the overrides in the form ParseFaultOverrides reads, kinds
// in drawing order; "" when nothing is forced.
func (o FaultOverrides) String() string {
	var parts []string
	for k, v := range o.force {
		switch v {
		case -1:
			parts = append(parts, "-"+faultNames[k])
		case 1:
			parts = append(parts, "+"+faultNames[k])
		}
	}
	return strings.Join(parts, ",")
}
