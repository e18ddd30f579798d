package props

import (
	"iter"

	"github.com/oklog/ulid/v2"
)

// passLag judges rows a leader pass must settle (a job waiting for an
// ended parent, a callback whose members all ended): owed at the end of a
// pass, a row is late at once; in a history in CommitOrder, where what a
// pass was owed may commit after its snapshot, only at the end of the
// next pass. The dependencies, the batches, retention (property 38) and
// the rest of a pass (39) each keep one.
type passLag struct {
	passes int               // the leader passes ended
	owedAt map[ulid.ULID]int // in CommitOrder: the pass at whose end a row was first owed
}

// late counts a pass and returns the rows of ids that are late; owed
// says which of them are owed now (nil: every one). In CommitOrder the
// rows kept are the ones owed now: a row not among ids, or no longer
// owed, is forgotten.
func (l *passLag) late(ids iter.Seq[ulid.ULID], owed func(ulid.ULID) bool, commitOrder bool) []ulid.ULID {
	l.passes++
	var late []ulid.ULID
	var next map[ulid.ULID]int
	for id := range ids {
		if owed != nil && !owed(id) {
			continue
		}
		if !commitOrder {
			late = append(late, id)
			continue
		}
		since, seen := l.owedAt[id]
		if !seen {
			since = l.passes
		} else if since < l.passes {
			late = append(late, id)
		}
		if next == nil {
			next = map[ulid.ULID]int{}
		}
		next[id] = since
	}
	if commitOrder {
		l.owedAt = next
	}
	return late
}
