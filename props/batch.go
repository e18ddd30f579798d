package props

import (
	"fmt"
	"maps"
	"slices"

	"github.com/oklog/ulid/v2"
)

// Properties 30 and 31, batches: member rows name their batch in
// JobRow.Batch (the id of its callback), and the callback's first row
// has CallbackOf equal to its own id; it is inserted waiting.
//
//   - Batch callback order (BatchOrder): a callback leaves Waiting for
//     available, scheduled or running (released) only once every member
//     row the batch ever had is terminal: every member ended for good,
//     its retries and snoozes included (they keep the batch). So the
//     callback never starts before its last member ended, and, since a
//     callback's first row leaves Waiting once, it starts once (its own
//     retries are the same job). Every attempt of the callback has the
//     members' outcomes in reach: none whose row still runs under its
//     worker ends because its batch is gone (failreason.BatchGone),
//     which a store that deleted the batch with the callback's first
//     row, a later attempt still to run, did.
//   - Batches settled (BatchesSettled): when a leader pass ends, no
//     callback waits while every member row of its batch is terminal:
//     the pass counted the last of them and released it. In a history
//     in CommitOrder the next pass must have, as for dependencies.

// batchIndex follows the batches.
type batchIndex struct {
	// members: callback id -> the member rows seen, in the order seen.
	members map[ulid.ULID][]ulid.ULID
	// waiting: the callbacks that wait.
	waiting map[ulid.ULID]bool
	// lag: the waiting callbacks owed a release by a pass.
	lag passLag
}

// index notes a row's new version (nil: deleted).
func (b *batchIndex) index(id ulid.ULID, before, after *JobRow) {
	if after != nil && after.Batch != (ulid.ULID{}) && (before == nil || before.Batch != after.Batch) {
		b.members[after.Batch] = append(b.members[after.Batch], id)
	}
	switch {
	case after != nil && after.Status == Awaiting && after.CallbackOf == id:
		b.waiting[id] = true
	case b.waiting[id]:
		delete(b.waiting, id)
	}
	if after == nil && len(b.members[id]) > 0 { // a callback deleted: its batch is done with
		delete(b.members, id)
	}
}

// unendedMember returns a member row of batch cb that is not terminal.
func (c *Checker) unendedMember(cb ulid.ULID) (JobRow, bool) {
	for _, m := range c.batches.members[cb] {
		if st := c.jobs[m]; st != nil && st.row.Batch == cb && !st.row.Status.Terminal() {
			return st.row, true
		}
	}
	return JobRow{}, false
}

// checkCallbackReleased judges a row that left Waiting to run: if it is
// a batch's callback, every member ended.
func (c *Checker) checkCallbackReleased(r JobRow) {
	if r.CallbackOf != r.ID {
		return
	}
	if m, ok := c.unendedMember(r.ID); ok {
		c.report(BatchOrder, fmt.Sprintf("callback %s of its batch stopped waiting (now %s) while member %s is %s",
			r.ID, r.Status, m.ID, m.Status), withJobs(r, m))
	}
}

// checkBatchesSettled judges the waiting callbacks at the end of a leader
// pass: none has a batch whose members all ended.
func (c *Checker) checkBatchesSettled(e *Event) {
	b := &c.batches
	if len(b.waiting) == 0 {
		return
	}
	late := b.lag.late(maps.Keys(b.waiting), func(cb ulid.ULID) bool {
		_, running := c.unendedMember(cb)
		return !running
	}, c.params.CommitOrder)
	if len(late) == 0 {
		return
	}
	cb := slices.MinFunc(late, ulid.ULID.Compare)
	c.report(BatchesSettled, fmt.Sprintf("leader pass of worker %s ended with callback %s still waiting, its %d members all ended",
		e.Worker, cb, len(b.members[cb])), withJobs(c.jobs[cb].row))
}
