package engine

import (
	"context"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// release gives up jobs that did not return by the drain deadline: each is
// failed with reason "worker shut down" and retried while attempts remain,
// in one transaction, so none stays running. The core stops counting them
// and ignores their results if they return later. Ids the core does not
// count as running are skipped. It holds no transaction while anyone waits.
func (c *Core) release(ctx context.Context, ids []ulid.ULID) error {
	if c.closed {
		return errShutDown
	}
	c.shuttingDown = true
	c.now = time.Time{}
	jobs := c.releasable(ids)
	if len(jobs) == 0 || mutant.On(mutant.ShutdownNoDrain) {
		return nil
	}
	err := c.inTx(ctx, "release", func(tx store.Tx, now time.Time) error {
		return c.releaseJobs(ctx, tx, now, jobs)
	})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		delete(c.executing, j.ID)
		delete(c.stopped, j.ID)
	}
	c.checkInvariants("Release")
	return nil
}

// releasable returns the executing jobs among ids, in id order.
func (c *Core) releasable(ids []ulid.ULID) []store.Job {
	var jobs []store.Job
	for _, id := range ids {
		if j, ok := c.executing[id]; ok {
			jobs = append(jobs, *j)
		}
	}
	slices.SortFunc(jobs, func(a, b store.Job) int { return a.ID.Compare(b.ID) })
	return slices.CompactFunc(jobs, func(a, b store.Job) bool { return a.ID == b.ID })
}

// releaseJobs fails and retries jobs, each under the worker id that
// reserved it.
func (c *Core) releaseJobs(ctx context.Context, tx store.Tx, now time.Time, jobs []store.Job) error {
	for _, j := range jobs {
		e := c.note(EventReleasedAtShutdown, j.StartedBy, now)
		e.Job, e.Reason = j, ReasonShutdown
		if err := c.failJob(ctx, tx, now, j, Retry, ReasonShutdown, "the job no longer ran under this worker when it was released", ErrReleased); err != nil {
			return err
		}
	}
	return nil
}

// shutdown ends the worker in one transaction: it records pending results,
// releases every job still counted as running (as Release does), marks the
// worker row shut down and gives up the lease, which notifies the stepdown
// channel. Afterwards the worker owns no running job and no lease. The
// driver calls it after draining; if it fails it may be called again.
func (c *Core) shutdown(ctx context.Context) error {
	if c.closed {
		return errShutDown
	}
	c.shuttingDown = true
	c.now = time.Time{}
	id := c.id
	jobs := c.releasable(c.runningIDs())
	drain := !mutant.On(mutant.ShutdownNoDrain)
	if !drain {
		jobs = nil
	}
	err := c.inTx(ctx, "shutdown", func(tx store.Tx, now time.Time) error {
		if err := c.recordResults(ctx, tx, now); err != nil {
			return err
		}
		if err := c.releaseJobs(ctx, tx, now, jobs); err != nil {
			return err
		}
		if id.IsZero() {
			return nil
		}
		// The row is shut down before the unseen jobs are listed: a job
		// pass of this worker still in flight (one a stop interrupted on
		// the client while the server went on to commit it) share-locks
		// the row, so the update waits for it and the listing sees what
		// it reserved; a pass after it finds the worker shut down and
		// reserves nothing. Listing first missed such a pass's jobs, left
		// running after the shutdown (seen once in the live chaos run).
		if err := tx.ShutdownWorker(ctx, id); err != nil {
			return err
		}
		if drain {
			if err := c.releaseUnseen(ctx, tx, now, id); err != nil {
				return err
			}
		}
		c.note(EventShutDown, id, now)
		released, err := tx.ReleaseLease(ctx, id)
		if err != nil {
			return err
		}
		if released {
			c.note(EventLeaseReleased, id, now)
		}
		return nil
	})
	c.settled(true, err)
	c.settled(false, err)
	if err != nil {
		return err
	}
	clear(c.executing)
	clear(c.stopped)
	c.leader, c.dutiesDue = false, false
	c.closed = true
	c.checkInvariants("Shutdown")
	return nil
}

// releaseUnseen releases jobs still running under id that the core never
// handed out (a reservation whose commit it did not see), so that a
// graceful shutdown leaves no running row behind.
func (c *Core) releaseUnseen(ctx context.Context, tx store.Tx, now time.Time, id ulid.ULID) error {
	running, err := tx.RunningJobs(ctx, id)
	if err != nil {
		return err
	}
	return c.releaseJobs(ctx, tx, now, running)
}
