package props

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// commitScope collects, while one commit's rows are applied, what the checks
// that need the whole commit look at afterwards.
type commitScope struct {
	leaderOnly string      // the first change only a leader may make: what it did
	leaderOf   string      // and to what
	inserted   []ulid.ULID // job rows inserted, in the order given
	links      []link      // next_attempt_id set on a row
	redriven   []ulid.ULID // rows inserted as the next attempt of a dead-lettered row
	failed     []ulid.ULID // running rows their worker failed
	reserved   []ulid.ULID // rows that started running
	settled    []ulid.ULID // rows that left Waiting
	deleted    []ulid.ULID // rows deleted while some row waited
	retained   int         // ended rows a worker's commit deleted: retention's (property 38)
	// operatorRetry: the commit is a batch of a bulk retry, whose retries
	// an operator decided, as a redrive's (Event.operatorRetry).
	operatorRetry bool
}

// link is a retry: Prev's next_attempt_id was set to Next.
type link struct{ prev, next ulid.ULID }

// leader records that the commit made a change only leader duties make:
// what it did, to the row named by id or name. The description is only
// built if it is reported.
func (sc *commitScope) leader(what string, id ulid.ULID, name string) {
	if sc.leaderOnly != "" {
		return
	}
	sc.leaderOnly, sc.leaderOf = what, name
	if name == "" {
		sc.leaderOf = id.String()
	}
}

// wasInserted reports whether the commit inserted row id. Commits touch few
// rows, so a scan is cheaper than a set.
func (sc *commitScope) wasInserted(id ulid.ULID) bool {
	for _, x := range sc.inserted {
		if x == id {
			return true
		}
	}
	return false
}

// commit applies one transaction's changes, table by table, checking each
// change and then what only the whole commit shows (retry links, schedule
// runs, leader-only changes).
func (c *Checker) commit(e *Event) {
	sc := &c.scope
	*sc = commitScope{inserted: sc.inserted[:0], links: sc.links[:0], failed: sc.failed[:0], reserved: sc.reserved[:0],
		redriven: c.redrivenIn(e, sc.redriven[:0]), operatorRetry: e.operatorRetry()}
	for _, ch := range e.Queues {
		var b, a QueueRow
		c.queueChange(norm(ch.Before, &b, normQueue), norm(ch.After, &a, normQueue))
	}
	for _, ch := range e.Leases {
		var b, a LeaseRow
		c.leaseChange(e, norm(ch.Before, &b, normLease), norm(ch.After, &a, normLease))
	}
	for _, ch := range e.Workers {
		var b, a WorkerRow
		c.workerChange(e, norm(ch.Before, &b, normWorker), norm(ch.After, &a, normWorker), sc)
	}
	for _, ch := range e.Jobs {
		var b, a JobRow
		c.jobChange(e, norm(ch.Before, &b, normJob), norm(ch.After, &a, normJob), sc)
	}
	c.checkUniqueKeys(e)
	c.startChains(sc)
	for _, l := range sc.links {
		c.retryLink(l, sc)
	}
	c.checkSealed(e, sc)
	c.checkScheduleRuns(e, sc)
	c.checkOrphanAttempts(sc)
	for _, id := range sc.failed {
		c.decisionHonoured(id)
	}
	for _, ch := range e.Schedules {
		var b, a ScheduleRow
		c.scheduleChange(e, norm(ch.Before, &b, normSchedule), norm(ch.After, &a, normSchedule), sc)
	}
	c.checkLeaderOnly(e, sc)
	c.checkReservations(e, sc)
	c.checkSequences(sc)
	c.checkSettled(sc.settled)
	c.checkParentsDeleted(sc.deleted)
	c.checkRetentionBatch(e, sc.retained)
	if e.Bulk != nil {
		c.checkBulk(e)
	}
}

// workerChange applies one workers row change. A worker shut down by
// another worker's commit was declared dead: that is a leader duty, allowed
// only past the dead threshold, and a shut-down worker never comes back.
func (c *Checker) workerChange(e *Event, before, after *WorkerRow, sc *commitScope) {
	id := rowID(before, after, func(r *WorkerRow) ulid.ULID { return r.ID })
	cur, known := c.workers[id]
	switch {
	case before == nil && known:
		c.report(WellFormed, fmt.Sprintf("worker %s inserted again", id), withWorkers(cur, *after))
	case before != nil && known && cur != *before:
		c.report(WellFormed, fmt.Sprintf("worker %s changed from a row the history never had", id), withWorkers(cur, *before))
	}
	if after == nil {
		delete(c.workers, id)
		sc.leader("deleted worker", id, "")
		if before != nil && before.ShutdownAt.IsZero() {
			c.report(SingleExecution, fmt.Sprintf("live worker %s was deleted", id), withWorkers(*before))
		}
		if before != nil {
			c.retainedWorker(e, before)
		}
		return
	}
	c.workers[id] = *after
	if before == nil {
		return
	}
	switch {
	case !before.ShutdownAt.IsZero() && after.ShutdownAt.IsZero():
		c.report(SingleExecution, fmt.Sprintf("worker %s came back to life after it was shut down", id), withWorkers(*before, *after))
	case !before.ShutdownAt.IsZero() && !after.LastSeenAt.Equal(before.LastSeenAt):
		c.report(SingleExecution, fmt.Sprintf("worker %s heartbeat after it was shut down", id), withWorkers(*before, *after))
	case before.ShutdownAt.IsZero() && !after.ShutdownAt.IsZero() && !e.Worker.IsZero() && e.Worker != id:
		c.declaredDeadBy(e, *before, *after, sc)
	}
}

// declaredDeadBy checks a worker row shut down by another worker's commit.
func (c *Checker) declaredDeadBy(e *Event, before, after WorkerRow, sc *commitScope) {
	sc.leader("declared dead worker", after.ID, "")
	unseen := e.Time.Sub(before.LastSeenAt)
	if c.params.DeadThreshold > 0 && unseen <= c.params.DeadThreshold {
		c.report(SingleExecution, fmt.Sprintf("worker %s declared dead by %s after %v unseen, within the dead threshold %v",
			after.ID, e.Worker, unseen, c.params.DeadThreshold), withWorkers(before, after))
	}
}

// checkLeaderOnly requires a commit that made a leader-only change on behalf
// of a worker to fall under that worker's unexpired lease.
func (c *Checker) checkLeaderOnly(e *Event, sc *commitScope) {
	if sc.leaderOnly == "" || e.Worker.IsZero() {
		return
	}
	if !c.leaseValid(e.Worker, e.Time) {
		c.report(LeaderUniqueness, fmt.Sprintf("worker %s %s %s without holding an unexpired lease", e.Worker, sc.leaderOnly, sc.leaderOf),
			withLease(c.lease))
	}
}

// leaseValid reports whether worker holds the lease and it is unexpired at
// t, the store time of the transaction that acts on it. In a history in
// CommitOrder, that transaction may commit after another worker took the
// expired lease over (a leader's duty transaction outlasting its lease:
// the duty lock, not the lease, keeps the next leader's duties out
// meanwhile), so the worker's latest term counts if it covered t.
func (c *Checker) leaseValid(worker ulid.ULID, t time.Time) bool {
	if c.lease != nil && c.lease.Holder == worker && c.lease.ExpiresAt.After(t) {
		return true
	}
	term, ok := c.terms[worker]
	return ok && c.params.CommitOrder && !term.ElectedAt.After(t) && term.ExpiresAt.After(t)
}

// rowID returns the id of a changed row from whichever side is present.
func rowID[R any, K comparable](before, after *R, id func(*R) K) K {
	if after != nil {
		return id(after)
	}
	return id(before)
}

// normTime makes equal instants compare equal with ==: UTC, no monotonic
// reading. The zero Time, most of a row's times, is its own form.
func normTime(t time.Time) time.Time {
	if t == (time.Time{}) {
		return t
	}
	return t.UTC().Round(0)
}

// norm copies the row r points at into dst with normalized times and
// returns dst, or nil for an absent row. The caller's dst lives on its
// stack: no allocation per change.
func norm[R any](r, dst *R, normalize func(*R)) *R {
	if r == nil {
		return nil
	}
	*dst = *r
	normalize(dst)
	return dst
}

func normJob(r *JobRow) {
	for _, t := range [...]*time.Time{&r.CreatedAt, &r.ScheduledAt, &r.StartedAt, &r.CompletedAt, &r.FailedAt, &r.CancelledAt} {
		*t = normTime(*t)
	}
}

func normWorker(r *WorkerRow) {
	r.RegisteredAt, r.LastSeenAt, r.ShutdownAt = normTime(r.RegisteredAt), normTime(r.LastSeenAt), normTime(r.ShutdownAt)
}

func normLease(r *LeaseRow) { r.ElectedAt, r.ExpiresAt = normTime(r.ElectedAt), normTime(r.ExpiresAt) }

func normSchedule(r *ScheduleRow) { r.LastScheduledAt = normTime(r.LastScheduledAt) }
