package props

import (
	"iter"

	"github.com/oklog/ulid/v2"
)

// passLag judges rows a leader pass must settle (a job waiting for an
// ended parent, a callback whose members all ended): owed at the end of a
// pass, a row is late at once; in a history in CommitOrder, where what a
// pass was owed may commit after its snapshot, only at the end of the
// next pass. The dependencies and the batches each keep one.
type passLag struct {
	passes int               // the leader passes ended
	owedAt map[ulid.ULID]int // in CommitOrder: the pass at whose end a row was first owed
}

// late counts a pass and returns the rows of ids that are late, owed
// saying which are owed now.
func (l *passLag) late(ids iter.Seq[ulid.ULID], owed func(ulid.ULID) bool, commitOrder bool) []ulid.ULID {
	l.passes++
	var late []ulid.ULID
	for id := range ids {
		since, seen := l.owedAt[id]
		switch {
		case !owed(id):
			delete(l.owedAt, id)
		case !commitOrder || seen && since < l.passes:
			late = append(late, id)
		case !seen:
			if l.owedAt == nil {
				l.owedAt = map[ulid.ULID]int{}
			}
			l.owedAt[id] = l.passes
		}
	}
	return late
}

// forget drops a row that is no longer owed anything (it left Waiting).
func (l *passLag) forget(id ulid.ULID) { delete(l.owedAt, id) }
