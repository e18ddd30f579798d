package props

import (
	"fmt"
	"slices"

	"github.com/oklog/ulid/v2"
)

// The properties of sequences (JobRow.Sequence), decided at the end of
// each commit. A row holds its sequence while it is the last of its
// attempts and is scheduled, available or running, or failed or was lost
// for good without continuing on failure or being skipped; a row that
// holds it failed or lost halts it.
//
//   - 25, one at a time (SequenceExclusive): no commit leaves two rows of
//     one sequence key running.
//   - 26, enqueue order (SequenceOrder): a commit that starts a row of a
//     key leaves no row of the key before it (a smaller place) holding
//     the sequence but for a halting one (27); a new job of a key is
//     placed after every row of the key, in the order its batch gave;
//     a retry or a snooze keeps the place of the row it follows.
//   - 27, halting (SequenceHalt): a commit that starts a row of a key
//     leaves no row of the key before it halting the sequence: a job that
//     failed for good holds its later jobs until an operator skips or
//     retries it.
//
// Only rows with a key cost anything: they are kept per key, and a
// sequence's rows are few next to the history.

// JobSequence is a job row's place in its sequence; zero: none.
type JobSequence struct {
	Key       string
	Pos       int64 `json:",omitzero"` // the place in enqueue order
	Continues bool  `json:",omitzero"` // a failure for good does not halt it
	Skipped   bool  `json:",omitzero"` // an operator released it
}

// holdsSequence reports whether r holds its sequence (above).
func holdsSequence(r *JobRow) bool {
	if r.Sequence.Key == "" || r.NextAttemptID != (ulid.ULID{}) {
		return false
	}
	switch r.Status {
	case Scheduled, Available, Running:
		return true
	case Failed, Lost:
		return !r.Sequence.Continues && !r.Sequence.Skipped
	}
	return false
}

// haltsSequence reports whether r halts its sequence.
func haltsSequence(r *JobRow) bool {
	return holdsSequence(r) && (r.Status == Failed || r.Status == Lost)
}

// holding is r if it holds its sequence, else nil: seqHolders's rows.
func holding(r *JobRow) *JobRow {
	if r == nil || !holdsSequence(r) {
		return nil
	}
	return r
}

// leastOther returns the row of the least id among ids but for r's: map
// order decides nothing.
func (c *Checker) leastOther(ids map[ulid.ULID]struct{}, r *JobRow) *JobRow {
	var least *JobRow
	for id := range ids {
		if o := &c.jobs[id].row; o.ID != r.ID && (least == nil || o.ID.Compare(least.ID) < 0) {
			least = o
		}
	}
	return least
}

// sequenceBlocker returns the row that keeps r from starting as far as
// its sequence is concerned: a running row of its key, or the one before
// it holding the sequence, the first in place; nil when none does.
func (c *Checker) sequenceBlocker(r *JobRow) *JobRow {
	if r.Sequence.Key == "" {
		return nil
	}
	// The first by (place, id) of the holding rows placed before r, and of
	// the running ones.
	h := c.seqHolders[r.Sequence.Key]
	if h == nil {
		return nil
	}
	var first *JobRow
	for _, p := range h.order {
		if p.id == r.ID {
			continue
		}
		if p.pos < r.Sequence.Pos {
			first = &c.jobs[p.id].row
		}
		break
	}
	if len(h.running) == 0 { // as mostly: spare a range's setup
		return first
	}
	for id := range h.running { // the least: map order decides nothing
		if o := &c.jobs[id].row; o.ID != r.ID && (first == nil || comparePlaces(placeOf(o), placeOf(first)) < 0) {
			first = o
		}
	}
	return first
}

// sequenceHeld reports whether row r waits for its sequence: a
// reservation may not take it.
func (c *Checker) sequenceHeld(r *JobRow) bool {
	return r.Sequence.Key != "" && c.sequenceBlocker(r) != nil
}

// haltedBehind reports whether r waits behind a row of its sequence that
// halts it: an operator must release it, so it may stay unfinished.
func (c *Checker) haltedBehind(r *JobRow) bool {
	if r.Sequence.Key == "" {
		return false
	}
	for _, p := range c.inOrder(r.Sequence.Key) {
		if p.pos >= r.Sequence.Pos {
			break
		}
		if haltsSequence(&c.jobs[p.id].row) {
			return true
		}
	}
	return false
}

// checkSequences decides 25 to 27 on the commit's inserts, links and
// reservations.
func (c *Checker) checkSequences(sc *commitScope) {
	if len(c.sequences) == 0 {
		return
	}
	var linked map[ulid.ULID]ulid.ULID // built for the first insert with a key: most commits have none
	var inserted map[ulid.ULID]bool
	for _, id := range sc.inserted {
		st := c.jobs[id]
		if st == nil || st.row.Sequence.Key == "" {
			continue
		}
		if inserted == nil {
			linked, inserted = make(map[ulid.ULID]ulid.ULID, len(sc.links)), make(map[ulid.ULID]bool, len(sc.inserted))
			for _, l := range sc.links {
				linked[l.next] = l.prev
			}
			for _, id := range sc.inserted {
				inserted[id] = true
			}
		}
		c.checkPlace(&st.row, linked, inserted)
	}
	for _, id := range sc.reserved {
		if st := c.jobs[id]; st != nil && st.row.Status == Running && st.row.Sequence.Key != "" {
			c.checkSequenceStart(&st.row)
		}
	}
}

// checkPlace judges the place of inserted row r: a retry's or a snooze's
// is the place of the row it follows; a new job's comes after every row
// of its key from before the commit, and no other job of the commit's has
// it. (A commit's changes come in id order, so the order of a batch is
// the store's conformance suite's to judge.)
func (c *Checker) checkPlace(r *JobRow, linked map[ulid.ULID]ulid.ULID, inserted map[ulid.ULID]bool) {
	if prev, ok := linked[r.ID]; ok {
		if p := c.jobs[prev]; p != nil && (p.row.Sequence.Key != r.Sequence.Key || p.row.Sequence.Pos != r.Sequence.Pos) {
			c.report(SequenceOrder, fmt.Sprintf("job %s follows job %s of sequence %q at place %d but has place %d of %q",
				r.ID, prev, p.row.Sequence.Key, p.row.Sequence.Pos, r.Sequence.Pos, r.Sequence.Key), withJobs(p.row, *r))
		}
		return
	}
	var o *JobRow // of the rows placed at r's or after, the least id but r's and its later batch's
	for _, p := range c.sequences[r.Sequence.Key].order.from(r.Sequence.Pos) {
		if p.id != r.ID && !(inserted[p.id] && p.pos > r.Sequence.Pos) && (o == nil || p.id.Compare(o.ID) < 0) {
			o = &c.jobs[p.id].row
		}
	}
	if o != nil {
		c.report(SequenceOrder, fmt.Sprintf("job %s of sequence %q enqueued at place %d, not after job %s at place %d",
			r.ID, r.Sequence.Key, r.Sequence.Pos, o.ID, o.Sequence.Pos), withJobs(*o, *r))
	}
}

// checkSequenceStart judges r, which the commit started.
func (c *Checker) checkSequenceStart(r *JobRow) {
	if o := c.leastOther(c.sequences[r.Sequence.Key].running, r); o != nil {
		c.report(SequenceExclusive, fmt.Sprintf("job %s of sequence %q started while job %s of the sequence runs",
			r.ID, r.Sequence.Key, o.ID), withJobs(*o, *r))
		return
	}
	b := c.sequenceBlocker(r)
	switch {
	case b == nil:
	case haltsSequence(b):
		c.report(SequenceHalt, fmt.Sprintf("job %s of sequence %q at place %d started while job %s at place %d halts the sequence (%s: %q)",
			r.ID, r.Sequence.Key, r.Sequence.Pos, b.ID, b.Sequence.Pos, b.Status, b.FailedReason), withJobs(*b, *r))
	default:
		c.report(SequenceOrder, fmt.Sprintf("job %s of sequence %q at place %d started before job %s at place %d, which is %s",
			r.ID, r.Sequence.Key, r.Sequence.Pos, b.ID, b.Sequence.Pos, b.Status), withJobs(*b, *r))
	}
}

// HaltingJobs returns the jobs that halt their sequences, in id order:
// those the simulator's operator may release.
func (c *Checker) HaltingJobs() []ulid.ULID {
	var ids []ulid.ULID
	for _, rows := range c.sequences {
		for _, p := range rows.order {
			if haltsSequence(&c.jobs[p.id].row) {
				ids = append(ids, p.id)
			}
		}
	}
	slices.SortFunc(ids, ulid.ULID.Compare)
	return ids
}

// HaltsBefore reports whether job id halts its sequence with a later job
// of the sequence waiting: the simulator's coverage mark.
func (c *Checker) HaltsBefore(id ulid.ULID) bool {
	st := c.jobs[id]
	if st == nil || !haltsSequence(&st.row) {
		return false
	}
	rows := c.inOrder(st.row.Sequence.Key)
	return len(rows) > 0 && rows[len(rows)-1].pos > st.row.Sequence.Pos
}

// OnlyHaltedWait reports whether every row that has not ended waits for an
// operator (waitsForOperator): behind a job that halts its sequence, or
// for a parent that does; the simulator's quiescence then waits for
// nothing (a schedule's next run aside).
func (c *Checker) OnlyHaltedWait() bool {
	if len(c.sequences) == 0 {
		return false
	}
	for _, st := range c.jobs { // the answer does not depend on the order
		r := &st.row
		if r.Status.Terminal() || c.nextCronRun(*r) {
			continue
		}
		if r.Status == Running || !c.waitsForOperator(r, 0) {
			return false
		}
	}
	return true
}
