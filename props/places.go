package props

import (
	"cmp"
	"slices"

	"github.com/oklog/ulid/v2"
)

// place is a row's place in its sequence: the order of a key's rows is by
// place, then id.
type place struct {
	pos int64
	id  ulid.ULID
}

func placeOf(r *JobRow) place { return place{r.Sequence.Pos, r.ID} }

func comparePlaces(a, b place) int { return cmp.Or(cmp.Compare(a.pos, b.pos), a.id.Compare(b.id)) }

// places are rows of one key in place order, kept sorted as rows come and
// go: a key's rows mostly arrive last in place order and leave first, so
// a change costs a search rather than the sort of every row that a
// history with a long sequence would pay at each commit.
type places []place

// add puts p in its place; it must not be there yet.
func (ps *places) add(p place) {
	i, _ := slices.BinarySearchFunc(*ps, p, comparePlaces)
	*ps = slices.Insert(*ps, i, p)
}

// remove takes p out, if it is there.
func (ps *places) remove(p place) {
	if i, ok := slices.BinarySearchFunc(*ps, p, comparePlaces); ok {
		*ps = slices.Delete(*ps, i, i+1)
	}
}

// from returns the places at pos or after it.
func (ps places) from(pos int64) places {
	i, _ := slices.BinarySearchFunc(ps, place{pos: pos}, comparePlaces)
	return ps[i:]
}
