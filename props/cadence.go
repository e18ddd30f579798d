package props

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// cadence keeps, of each worker, when the tick began in which it last did
// one duty: heartbeat (property 40), or maintain the lease (41).
type cadence map[ulid.ULID]time.Time

// done notes that worker w did the duty in its tick that began at t.
func (c *cadence) done(w ulid.ULID, t time.Time) {
	if *c == nil {
		*c = cadence{}
	}
	(*c)[w] = t
}

// overdue returns how long after the tick of w's last duty its tick that
// began at t began, and whether that is bound or more, so the tick owed
// the duty. A worker not seen before starts its count at t.
func (c *cadence) overdue(w ulid.ULID, t time.Time, bound time.Duration) (since time.Duration, owed bool) {
	last, seen := (*c)[w]
	if !seen {
		c.done(w, t)
		return 0, false
	}
	since = t.Sub(last)
	return since, since >= bound
}
