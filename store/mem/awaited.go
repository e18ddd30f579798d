package mem

import "github.com/oklog/ulid/v2"

// A row's awaited mark is store/pg's jobs.awaited: set on every parent a
// waiting row is written with, copied by a row's next attempt, and cleared
// by the leader's SettleWaitingJobs on the rows that ended; a deleted row
// takes its mark along. Only a completion on a queue without history reads
// it (rules.DeletesAtCompletion): store/pg reads the mark there, on the
// row it deletes, because a concurrent insert of a child sets it on the
// parent's row, which the DELETE rereads, where the child's job_waits row
// stays out of the DELETE's snapshot. A mark set after the children left
// (cancelled) keeps the row too, here as on PostgreSQL.

// awaitMark is a row's mark before the transaction first changed it, for
// the rollback.
type awaitMark struct {
	id  ulid.ULID
	was bool
}

// setAwaited sets or clears row id's mark, noting its first value for the
// rollback.
func (t *tx) setAwaited(id ulid.ULID, on bool) {
	was := t.s.awaited[id]
	if was == on {
		return
	}
	if !t.markedBefore(id) {
		t.awaitedBefore = append(t.awaitedBefore, awaitMark{id, was})
	}
	if on {
		t.s.awaited[id] = true
	} else {
		delete(t.s.awaited, id)
	}
}

// markedBefore reports whether the transaction already changed id's mark.
func (t *tx) markedBefore(id ulid.ULID) bool {
	for _, m := range t.awaitedBefore {
		if m.id == id {
			return true
		}
	}
	return false
}

// clearEndedMarks clears the marks of the rows that ended, as the end of
// store/pg's SettleWaitingJobs does for every ended row it found marked
// and the rows it cancelled.
func (t *tx) clearEndedMarks() {
	var ended []ulid.ULID
	for id := range t.s.awaited {
		if j, ok := t.s.jobs[id]; ok && j.Status.Terminal() {
			ended = append(ended, id)
		}
	}
	for _, id := range ended { // the order changes nothing: each is cleared
		t.setAwaited(id, false)
	}
}

// undoAwaited restores the marks the transaction changed.
func (t *tx) undoAwaited() {
	for i := len(t.awaitedBefore) - 1; i >= 0; i-- {
		m := t.awaitedBefore[i]
		if m.was {
			t.s.awaited[m.id] = true
		} else {
			delete(t.s.awaited, m.id)
		}
	}
}
