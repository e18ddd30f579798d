package props

import (
	"fmt"
	"strings"
)

// holdsKey reports whether row r holds its unique key: it has one and its
// status is one the key covers.
func holdsKey(r *JobRow) bool {
	if r == nil || r.UniqueKey == "" {
		return false
	}
	for s := range strings.SplitSeq(r.UniqueWhile, ",") {
		if Status(s) == r.Status {
			return true
		}
	}
	return false
}

// checkUniqueKeys applies a commit's job changes to the key holders: first
// every row that stopped holding its key lets go, then every row that holds
// one takes it, so that a commit may hand a key from one row to another (a
// failure and its retry). A key taken while another row holds it breaks
// property 8.
func (c *Checker) checkUniqueKeys(e *Event) {
	for _, ch := range e.Jobs {
		if b := ch.Before; holdsKey(b) && !holdsKey(ch.After) && c.keyHolders[b.UniqueKey] == b.ID {
			delete(c.keyHolders, b.UniqueKey)
			if c.params.CommitOrder {
				c.keyReleased[b.UniqueKey] = keyRelease{holder: b.ID, at: e.Time}
			}
		}
	}
	for _, ch := range e.Jobs {
		a := ch.After
		if !holdsKey(a) {
			continue
		}
		holder, held := c.keyHolders[a.UniqueKey]
		if held && holder != a.ID {
			msg := fmt.Sprintf("job %s holds unique key %q while job %s holds it", a.ID, a.UniqueKey, holder)
			var rows []JobRow
			if st := c.jobs[holder]; st != nil {
				rows = append(rows, st.row)
			}
			c.report(UniqueKeys, msg, withJobs(append(rows, *a)...))
			continue
		}
		c.keyHolders[a.UniqueKey] = a.ID
	}
}
