package props

import (
	"github.com/oklog/ulid/v2"
)

// keyRows keeps, per sequence key, a set of its rows in place order, and
// those running apart: every row with a key (Checker.sequences), and the
// rows that hold their sequence (Checker.seqHolders, holdsSequence). A job
// pass asks of every ready row whether its sequence holds it back, and a
// sequence's backlog holds many rows; the holders answer from the first
// row in place order and the few running ones.
type keyRows map[string]*seqRows

// seqRows are one key's rows of a keyRows.
type seqRows struct {
	order   places
	running map[ulid.ULID]struct{}
}

// index keeps k in step with one row change; before and after are the
// row's versions in the set, nil for none.
func (k keyRows) index(id ulid.ULID, before, after *JobRow) {
	if before != nil && after != nil && before.Sequence.Key == after.Sequence.Key && placeOf(before) == placeOf(after) {
		if rows := k[after.Sequence.Key]; rows != nil { // in its place still: only running may change
			rows.setRunning(id, after.Status == Running)
			return
		}
	}
	if before != nil {
		if rows := k[before.Sequence.Key]; rows != nil {
			rows.order.remove(placeOf(before))
			delete(rows.running, id)
			if len(rows.order) == 0 {
				delete(k, before.Sequence.Key)
			}
		}
	}
	if after == nil {
		return
	}
	rows := k[after.Sequence.Key]
	if rows == nil {
		rows = &seqRows{running: map[ulid.ULID]struct{}{}}
		k[after.Sequence.Key] = rows
	}
	rows.order.add(placeOf(after))
	rows.setRunning(id, after.Status == Running)
}

// setRunning records whether row id of the key runs.
func (rows *seqRows) setRunning(id ulid.ULID, running bool) {
	if running {
		rows.running[id] = struct{}{}
	} else {
		delete(rows.running, id)
	}
}

// keyed is r if it has a sequence key, else nil: Checker.sequences's rows.
func keyed(r *JobRow) *JobRow {
	if r == nil || r.Sequence.Key == "" {
		return nil
	}
	return r
}

// inOrder returns key's holding rows by (place, id).
func (c *Checker) inOrder(key string) places {
	if h := c.seqHolders[key]; h != nil {
		return h.order
	}
	return nil
}
