package mem

import (
	"cmp"
	"time"

	"github.com/oklog/ulid/v2"
)

// entry is one index entry: a job id and, for time-ordered indexes, the time
// it is ordered by. Entries are ordered by (pri, at, id), so ties break by id and
// the order never depends on insertion order.
type entry struct {
	pri int   // the job's priority, for the available heaps; 0 elsewhere
	at  stamp // the time the index orders by
	id  ulid.ULID
}

// stamp is a time as an index entry holds it: without time.Time's
// location pointer, so that the heaps hold no pointers for the garbage
// collector to scan, and compared without decoding a wall clock.
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{sec: t.Unix(), nsec: int32(t.Nanosecond())} }

// compare orders stamps as time.Time.Compare orders their times.
func (a stamp) compare(b stamp) int {
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	return cmp.Compare(a.nsec, b.nsec)
}

func (a entry) less(b entry) bool {
	if a.pri != b.pri {
		return a.pri < b.pri
	}
	if c := a.at.compare(b.at); c != 0 {
		return c < 0
	}
	return a.id.Compare(b.id) < 0
}

// entryHeap is a binary min-heap of entries. The store pushes an entry when
// a row enters the indexed state and never removes it eagerly: whoever pops
// checks the entry against the row and discards it if it went stale. A
// rolled-back write pushes again, so a row may have duplicate entries; the
// first valid pop changes the row and makes the others stale.
type entryHeap []entry

func (h *entryHeap) push(e entry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].less(s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// peek returns the smallest entry; the heap must not be empty.
func (h entryHeap) peek() entry { return h[0] }

func (h *entryHeap) pop() entry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(s) && s[l].less(s[small]) {
			small = l
		}
		if r < len(s) && s[r].less(s[small]) {
			small = r
		}
		if small == i {
			break
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
	*h = s
	return top
}

// top discards stale entries and returns the smallest valid one.
func (h *entryHeap) top(valid func(entry) bool) (entry, bool) {
	for len(*h) > 0 {
		if e := h.peek(); valid(e) {
			return e, true
		}
		h.pop()
	}
	return entry{}, false
}
