package interleave

import "slices"

// rivalLocked finds two round trips that wait on a common holder and not
// on each other, and returns the later one in connection order with what
// it is cancelled over: the rival and the common holders. The server
// would wake both together when the holder lets go (two shared lockers
// behind an exclusive one), and which of them then reaches a row first is
// its scheduling, not the seed's. Cancelling one as a deadlock victim
// (the caller sees 40P01 and tries again) leaves one waiter per holder,
// so that what a release wakes is decided. Waiters of one exclusive lock
// queue behind each other (pg_blocking_pids names the one ahead), which
// orders them already.
func (ctl *Controller) rivalLocked() (*conn, []string) {
	var waiting []*conn
	for _, c := range ctl.sortedLocked() {
		if c.phase == sent && !c.closed && !c.victim && len(c.on) > 0 {
			waiting = append(waiting, c)
		}
	}
	for i, a := range waiting {
		for _, b := range waiting[i+1:] {
			if slices.Contains(a.on, b.id) || slices.Contains(b.on, a.id) {
				continue
			}
			var common []string
			for _, h := range b.on {
				if slices.Contains(a.on, h) {
					common = append(common, h)
				}
			}
			if len(common) > 0 {
				return b, append([]string{a.id}, common...)
			}
		}
	}
	return nil, nil
}
