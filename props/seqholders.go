package props

import (
	"github.com/oklog/ulid/v2"
)

// holderIndex keeps, per sequence key, the rows that hold their sequence
// (holdsSequence): in place order, and those running apart. A job pass
// asks of every ready row whether its sequence holds it back, and a
// sequence's backlog holds many rows; the index answers from the first
// row in place order and the few running ones.
type holderIndex map[string]*holders

// index keeps the index in step with one row change; before and after are
// the row's versions that hold their sequence, nil for none.
func (hi holderIndex) index(id ulid.ULID, before, after *JobRow) {
	if before != nil && after != nil && before.Sequence.Key == after.Sequence.Key && placeOf(before) == placeOf(after) {
		if h := hi[after.Sequence.Key]; h != nil { // it holds on in its place: only running may change
			h.setRunning(id, after.Status == Running)
			return
		}
	}
	if before != nil {
		if h := hi[before.Sequence.Key]; h != nil {
			h.order.remove(placeOf(before))
			delete(h.running, id)
			if len(h.order) == 0 {
				delete(hi, before.Sequence.Key)
			}
		}
	}
	if after == nil {
		return
	}
	h := hi[after.Sequence.Key]
	if h == nil {
		h = &holders{running: map[ulid.ULID]struct{}{}}
		hi[after.Sequence.Key] = h
	}
	h.order.add(placeOf(after))
	h.setRunning(id, after.Status == Running)
}

// inOrder returns key's holding rows by (place, id).
func (c *Checker) inOrder(key string) places {
	if h := c.seqHolders[key]; h != nil {
		return h.order
	}
	return nil
}
