package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// tick runs one loop iteration at local time now: register if needed;
// lease maintenance in its own short transaction when LeaderInterval has
// passed; failed results and the recovery of reservations whose commit was
// not seen, in a transaction of their own when there are any; then one
// store.JobPass that heartbeats when due, records the successes and
// reserves min(MaxFetch, MaxConcurrent − running) jobs. Leader duties are
// not part of it: when the lease pass found this worker leading, dutiesPending
// reports it and the driver calls Duties after starting the jobs, so a
// slow duty transaction never delays a job start.
//
// A failed phase does not stop the later ones: the error is returned
// (joined) after all ran, and the jobs in Start must be started regardless.
// A worker declared dead is not an error: the core registers again under a
// new id and carries on.
func (c *Core) tick(ctx context.Context, now time.Time) (tickResult, error) {
	if c.closed {
		return tickResult{}, errShutDown
	}
	c.now = now
	c.dutiesDue = false
	c.cancelFound = nil
	if c.id == (ulid.ULID{}) && !c.shuttingDown {
		if err := c.register(ctx); err != nil {
			return tickResult{}, c.tickFailed(err)
		}
	}
	leaderPass := false
	var leaseErr error
	if !c.shuttingDown && due(now, c.lastLeader, c.leaderInterval()) {
		leaseErr = c.maintainLease(ctx)
		leaderPass = leaseErr == nil
	}
	start, err := c.jobPass(ctx)
	if isDead(err) {
		// Register again (unless shutting down) and reserve at once. The
		// pass that found us dead has written the results (fenced or not);
		// failures not yet written go out under their old worker ids.
		if err = c.reregister(ctx, err); err == nil {
			var more []store.Job
			more, err = c.jobPass(ctx)
			start = slices.Concat(start, more) // start's array is executing's (handOut)
			slices.SortFunc(start, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
		}
	}
	c.dutiesDue = leaderPass && c.leader && !c.shuttingDown
	err = c.tickFailed(errors.Join(leaseErr, err))
	c.checkInvariants("Tick")
	return tickResult{Start: start, Cancel: c.cancelFound}, err
}

// dutiesPending reports whether the last Tick's lease pass found this worker
// leading, so that Duties should run next.
func (c *Core) dutiesPending() bool { return c.dutiesDue && !c.closed }

// runDuties runs the leader duties the last Tick made due, in their own
// transaction (see duties); it does nothing when none are due. A failure
// counts as a failed tick for nextPoll's backoff, once per tick.
func (c *Core) runDuties(ctx context.Context) error {
	if !c.dutiesPending() {
		return nil
	}
	c.dutiesDue = false
	err := c.duties(ctx)
	if err != nil && c.failures == 0 {
		c.failures = 1 // the tick itself succeeded: this is its one failure
	}
	c.checkInvariants("Duties")
	return err
}

// tickFailed counts consecutive failed ticks for nextPoll's backoff.
func (c *Core) tickFailed(err error) error {
	if err != nil {
		c.failures++
	} else {
		c.failures = 0
	}
	return err
}

// register inserts a new worker row and makes sure the schedules exist. If
// the commit is not seen, the row may exist anyway; it is never used and a
// leader declares it dead once its heartbeat is stale.
func (c *Core) register(ctx context.Context) error {
	var id ulid.ULID
	err := c.inTx(ctx, "register", func(tx store.Tx, now time.Time) error {
		id = clockrng.NewULID(now, c.idRand)
		if err := tx.RegisterWorker(ctx, id); err != nil {
			return err
		}
		if err := tx.EnsureSchedules(ctx, scheduleNames(c.schedules)); err != nil {
			return err
		}
		for _, q := range slices.Sorted(maps.Keys(c.cfg.DeadLetters)) {
			if err := tx.SetQueueDeadLetter(ctx, q, c.cfg.DeadLetters[q]); err != nil {
				return err
			}
		}
		c.note(EventRegistered, id, now)
		return nil
	})
	if err != nil {
		return err
	}
	c.id = id
	c.lastHeartbeat = c.now
	return nil
}

// declaredDead forgets everything tied to the old worker id. Jobs reserved
// under it keep running and stay counted; their results are written under
// the old id and fenced if a leader rescued them.
func (c *Core) declaredDead(err error) {
	e := c.event(EventDeclaredDead, c.id)
	e.Err = err
	c.emit(e)
	c.id = ulid.ULID{}
	c.leader = false
	c.unseenReserve = false
}

// reregister handles the declared-dead signal err: it forgets the old id
// and, unless shutting down, registers under a new one.
func (c *Core) reregister(ctx context.Context, err error) error {
	c.declaredDead(err)
	if c.shuttingDown {
		return nil
	}
	return c.register(ctx)
}

// maintainLease expires a lapsed lease and takes or renews ours, in a
// transaction of its own so the job path of other workers never waits on
// the lease row.
func (c *Core) maintainLease(ctx context.Context) error {
	err := c.inTx(ctx, "lease", c.leaseBody)
	if isDead(err) {
		return c.reregister(ctx, err)
	}
	if err != nil {
		// The renewal may or may not have happened; duties re-check anyway.
		return err
	}
	c.leader = c.leaseFound.held
	if c.leaseFound.held {
		c.leaseUntil = c.leaseFound.until
	}
	c.lastLeader = c.now
	return nil
}

// leaderInterval is how often the core maintains the lease.
func (c *Core) leaderInterval() time.Duration {
	if mutant.On(mutant.LeaderPassesSlow) {
		return 3 * c.cfg.LeaderInterval
	}
	return c.cfg.LeaderInterval
}

// takeLease is maintainLease's transaction: it notes what it found in
// c.leaseFound and the lease's event.
func (c *Core) takeLease(tx store.Tx, now time.Time) error {
	ctx := c.txCtx
	expired, err := tx.ExpireLease(ctx)
	if err != nil {
		return err
	}
	held, err := tx.TryAcquireLease(ctx, c.id, c.cfg.LeaseTTL)
	if err != nil {
		return asDead(c.id, err)
	}
	until := now.Add(c.cfg.LeaseTTL.Truncate(time.Microsecond))
	c.leaseFound.held, c.leaseFound.until = held, until
	switch {
	case held && (expired || !c.leader || !now.Before(c.leaseUntil) && !mutant.On(mutant.LeaseRetakenRenews)):
		// A renewal extends only an unexpired lease: once the one we
		// last saw committed has expired, the lease we hold is a new
		// term, even if another worker deleted the old row and this
		// transaction expired nothing (seen in the failover chaos run,
		// where every worker was cut off for longer than the TTL).
		c.note(EventLeaseAcquired, c.id, now).LeaseExpires = until
	case held:
		c.note(EventLeaseRenewed, c.id, now).LeaseExpires = until
	case c.leader:
		c.note(EventLeaseLost, c.id, now)
	}
	return nil
}

// jobPass is the job path: failed results and the recovery of unseen
// reservations in a transaction of their own when there are any (retries
// need the store time before they write, and recovery changes how many
// jobs to reserve), then one store.JobPass for the heartbeat, the
// successes and the reservation, which PostgreSQL does in one round trip.
// It returns the jobs to start, even with an error.
func (c *Core) jobPass(ctx context.Context) ([]store.Job, error) {
	id := c.id
	recovered, err := c.settleFailures(ctx)
	if err != nil {
		return nil, err
	}
	reserved, asked, err := c.completeAndReserve(ctx, id, len(recovered))
	if err != nil && len(recovered) > 0 && !mutant.On(mutant.RecoveredAfterFailedPass) {
		// The job pass failed, perhaps after waiting out its deadline: the
		// recovered jobs were read before it and may have been rescued
		// since (a call may outlast the dead threshold). The next tick
		// reads them again.
		recovered, c.unseenReserve = nil, true
	}
	start := c.hand(recovered, reserved)
	if err == nil {
		// After the starts, so that a history counts the places the pass
		// left free as its process's open executions (property 22).
		e := c.event(EventJobPass, id)
		e.StoreTime, e.Queues, e.Limit, e.Count = asked.storeTime, asked.queues, asked.limit, len(reserved)
		c.emit(e)
	}
	return start, err
}

// settleFailures records the pending failures and, after a reservation
// whose commit was not seen, finds the jobs it reserved. It runs no
// transaction when there is neither.
func (c *Core) settleFailures(ctx context.Context) ([]store.Job, error) {
	recover := c.unseenReserve
	failures := slices.ContainsFunc(c.pending, func(r pendingResult) bool { return r.Decision != Succeed })
	if !recover && !failures {
		return nil, nil
	}
	var recovered []store.Job
	err := c.inTx(ctx, "results", func(tx store.Tx, now time.Time) error {
		recovered = nil
		if recover {
			var err error
			if recovered, err = c.recoverReservations(ctx, tx); err != nil {
				return err
			}
		}
		return c.recordFailures(ctx, tx, now)
	})
	c.settled(false, err)
	if err != nil {
		return nil, err
	}
	if recover {
		c.unseenReserve = false
	}
	return recovered, nil
}

// heartbeatDue reports whether the job pass of worker id (zero: none
// registered) heartbeats: its interval passed on the local clock, or it
// recovered jobs.
func (c *Core) heartbeatDue(id ulid.ULID, recovered int) bool {
	if id == (ulid.ULID{}) || mutant.On(mutant.HeartbeatSkippedWhileBusy) && len(c.executing) > 0 {
		return false
	}
	return recovered > 0 || due(c.now, c.lastHeartbeat, c.cfg.HeartbeatInterval)
}

// passAsked is what a job pass asked the store for: its EventJobPass but
// for the count reserved. It is not that Event, over a kilobyte, which
// completeAndReserve would copy out at every pass.
type passAsked struct {
	queues    []string
	limit     int
	storeTime time.Time // zero when the pass ran no transaction
}

// completeAndReserve runs the store.JobPass: a heartbeat when due, the
// successes, the cancel check when due, and a reservation of
// min(MaxFetch, MaxConcurrent − running).
// A worker found dead is reported with a deadError once the committed
// completions are noted. asked is what it asked for, for the EventJobPass.
func (c *Core) completeAndReserve(ctx context.Context, id ulid.ULID, recovered int) (reserved []store.Job, asked passAsked, err error) {
	// Recovered jobs were read in a transaction before this one: a
	// heartbeat proves the worker was not declared dead (and its jobs
	// rescued) since, or the pass fails and they are read again.
	p := store.JobPass{
		Worker:    id,
		Heartbeat: c.heartbeatDue(id, recovered),
		Complete:  c.completions(),
		Executing: c.cancelCheck(),
	}
	limit := min(c.cfg.MaxFetch, c.cfg.MaxConcurrent-len(c.executing)-recovered)
	if mutant.On(mutant.MaxFetch) {
		limit = max(c.cfg.MaxFetch, c.cfg.MaxConcurrent-len(c.executing)-recovered)
	}
	if mutant.On(mutant.WakeReservesNothing) && c.wokenBy == "notification" ||
		mutant.On(mutant.PollReservesNothing) && c.wokenBy == "sleep" {
		limit = 0
	}
	if !c.shuttingDown {
		p.Queues, p.Limit = c.cfg.Queues, limit
	}
	if p.Reserves() { // a pass under no worker (its registration failed) reserves nothing
		asked.queues, asked.limit = p.Queues, p.Limit
	}
	if p.Empty() {
		return nil, asked, nil
	}
	res, err := store.RunJobPass(ctx, c.st, p)
	if err != nil {
		c.settled(true, err)
		if p.Reserves() {
			c.unseenReserve = true
		}
		err = c.deliver("jobs", err)
		if mutant.On(mutant.StartBeforeCommit) {
			return res.Reserved, asked, err
		}
		return nil, asked, err
	}
	asked.storeTime = res.Now
	if p.Heartbeat && !res.Dead {
		c.lastHeartbeat = c.now
		c.note(EventHeartbeat, id, res.Now)
	}
	c.noteCompletions(res.Now, res.Fenced)
	c.noteCancelCheck(id, p.Executing, res)
	c.settled(true, nil)
	err = c.deliver("jobs", nil)
	if err == nil && res.Dead {
		err = asDead(id, fmt.Errorf("job pass: no live worker: %w", store.ErrNotFound))
	}
	return res.Reserved, asked, err
}

// recoverReservations returns the jobs running under this worker that the
// core never handed out: a Reserve whose commit it did not see did commit.
func (c *Core) recoverReservations(ctx context.Context, tx store.Tx) ([]store.Job, error) {
	running, err := tx.RunningJobs(ctx, c.id)
	if err != nil {
		return nil, err
	}
	waiting := map[ulid.ULID]bool{}
	for _, p := range c.pending {
		waiting[p.JobID] = true
	}
	var unknown []store.Job
	for _, j := range running {
		if _, ok := c.executing[j.ID]; !ok && !waiting[j.ID] {
			unknown = append(unknown, j)
		}
	}
	return unknown, nil
}

// hand counts committed reservations as executing and reports them
// started, recovered ones first, and returns them all in id order.
func (c *Core) hand(recovered, reserved []store.Job) []store.Job {
	c.handOut(recovered, "recovered after a reservation whose commit was not seen")
	c.handOut(reserved, "")
	if len(recovered) == 0 {
		return reserved // in id order already, as store.JobPassResult promises
	}
	start := slices.Concat(recovered, reserved)
	slices.SortFunc(start, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
	return start
}

// handOut counts jobs as executing under the id that reserved them. It
// keeps pointers into jobs, which the store gave the core: nothing may
// write to its elements or reorder them afterwards (a merged start list is
// a new slice; see Tick).
func (c *Core) handOut(jobs []store.Job, reason string) {
	for i := range jobs {
		j := &jobs[i]
		if j.StartedBy == (ulid.ULID{}) || j.Status != store.Running {
			panic(fmt.Sprintf("worker: invariant broken: handed out job %s is %s under worker %s, want running under a worker", j.ID, j.Status, j.StartedBy))
		}
		c.executing[j.ID] = j
		e := c.event(EventJobStarted, j.StartedBy)
		e.StoreTime, e.Job, e.Reason = j.StartedAt, *j, reason
		c.emit(e)
	}
}
