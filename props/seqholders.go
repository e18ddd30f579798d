package props

import (
	"cmp"
	"slices"

	"github.com/oklog/ulid/v2"
)

// holderIndex keeps, per sequence key, the rows that hold their sequence
// (holdsSequence): in place order when asked, and those running apart. A
// job pass asks of every ready row whether its sequence holds it back,
// and a sequence's backlog holds many rows; the index answers from the
// first row in place order and the few running ones, sorting a key's rows
// again only after a commit changed them.
type holderIndex map[string]*holders

// holders are one key's holding rows.
type holders struct {
	ids     map[ulid.ULID]struct{}
	running map[ulid.ULID]struct{}
	order   []*JobRow // ids' rows by (place, id); nil once a change made it stale
}

// index keeps the index in step with one row change; before and after are
// the row's versions that hold their sequence, nil for none.
func (hi holderIndex) index(id ulid.ULID, before, after *JobRow) {
	if before != nil {
		if h := hi[before.Sequence.Key]; h != nil {
			delete(h.ids, id)
			delete(h.running, id)
			h.order = nil
			if len(h.ids) == 0 {
				delete(hi, before.Sequence.Key)
			}
		}
	}
	if after == nil {
		return
	}
	h := hi[after.Sequence.Key]
	if h == nil {
		h = &holders{ids: map[ulid.ULID]struct{}{}, running: map[ulid.ULID]struct{}{}}
		hi[after.Sequence.Key] = h
	}
	h.ids[id] = struct{}{}
	if after.Status == Running {
		h.running[id] = struct{}{}
	}
	h.order = nil
}

// inOrder returns key's holding rows by (place, id).
func (c *Checker) inOrder(key string) []*JobRow {
	h := c.seqHolders[key]
	if h == nil {
		return nil
	}
	return c.ordered(h)
}

// ordered returns h's rows by (place, id), sorting them only after a
// change.
func (c *Checker) ordered(h *holders) []*JobRow {
	if h.order == nil {
		h.order = make([]*JobRow, 0, len(h.ids))
		for id := range h.ids {
			h.order = append(h.order, &c.jobs[id].row)
		}
		slices.SortFunc(h.order, placeOrder)
	}
	return h.order
}

// placeOrder orders rows by place, then id.
func placeOrder(a, b *JobRow) int {
	return cmp.Or(cmp.Compare(a.Sequence.Pos, b.Sequence.Pos), a.ID.Compare(b.ID))
}
