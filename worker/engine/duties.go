package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// duties runs the leader's housekeeping in one transaction, only after
// LockLeaderDuties confirmed in that same transaction that our lease is
// held and unexpired: a worker whose lease lapsed does nothing.
func (c *Core) duties(ctx context.Context) error {
	held, vacuum, deleted := false, false, 0
	cleanup := c.retentionOwed || due(c.now, c.lastCleanup, c.cfg.CleanupInterval)
	err := c.inTx(ctx, "duties", func(tx store.Tx, now time.Time) error {
		var err error
		held, err = tx.LockLeaderDuties(ctx, c.id)
		if mutant.On(mutant.DutiesWithoutRecheck) {
			held, err = true, nil
		}
		if err != nil || !held {
			if err == nil {
				c.note(EventLeaseLost, c.id, now)
			}
			return err
		}
		c.note(EventDutiesStarted, c.id, now)
		if deleted, err = c.leaderDuties(ctx, tx, now, cleanup); err != nil {
			return err
		}
		if vacuum, err = c.claimVacuum(ctx, tx, now); err != nil {
			return err
		}
		e := c.note(EventDutiesEnded, c.id, now)
		if cleanup {
			e.Limit, e.Count = c.cfg.CleanupBatch, deleted
		}
		return nil
	})
	if err != nil {
		return err
	}
	if held && vacuum {
		c.vacuum = vacuumDue
	}
	c.leader = held
	if held && cleanup {
		c.cleanedUp(deleted)
	}
	return nil
}

// cleanedUp notes a retention pass that deleted n job rows. A full batch
// means more may wait: the next leader pass goes on, without waiting for
// the cleanup interval (whatever the local clock did meanwhile).
func (c *Core) cleanedUp(n int) {
	c.retentionOwed = n == c.cfg.CleanupBatch && !mutant.On(mutant.RetentionPausesAfterFullBatch)
	if !c.retentionOwed {
		c.lastCleanup = c.now
	}
}

// leaderDuties runs the leader's duties in tx, with retention when
// cleanup, and returns the job rows retention deleted.
func (c *Core) leaderDuties(ctx context.Context, tx store.Tx, now time.Time, cleanup bool) (deleted int, err error) {
	if err := c.fireSchedules(ctx, tx, now); err != nil {
		return 0, err
	}
	if err := c.rescueDeadWorkers(ctx, tx, now); err != nil {
		return 0, err
	}
	if err := c.settleWaitingJobs(ctx, tx, now); err != nil {
		return 0, err
	}
	n, err := tx.PromoteScheduledJobs(ctx)
	if err != nil {
		return 0, fmt.Errorf("promote scheduled jobs: %w", err)
	}
	if n > 0 {
		e := c.note(EventJobsPromoted, c.id, now)
		e.Count = n
	}
	if !cleanup {
		return 0, nil
	}
	return c.deleteOldRows(ctx, tx, now)
}

// rescueDeadWorkers shuts down workers whose heartbeat is older than the
// threshold (store time) and turns every job still running under a shut-down
// worker into a lost row, retried like a failure while attempts remain.
func (c *Core) rescueDeadWorkers(ctx context.Context, tx store.Tx, now time.Time) error {
	dead, err := tx.ShutdownDeadWorkers(ctx, c.cfg.DeadWorkerThreshold)
	if err != nil {
		return fmt.Errorf("shut down dead workers: %w", err)
	}
	if len(dead) > 0 {
		e := c.note(EventDeadWorkersShutDown, c.id, now)
		e.Workers, e.Count = dead, len(dead)
	}
	if mutant.On(mutant.NoRescue) {
		return nil
	}
	lost, err := tx.RescueLostJobs(ctx)
	if err != nil {
		return fmt.Errorf("rescue lost jobs: %w", err)
	}
	for _, j := range lost {
		e := c.note(EventJobRescued, c.id, now)
		e.Job, e.Reason = j, j.FailedReason
		if err := c.retryOrAbandon(ctx, tx, now, c.id, j, Retry, fmt.Errorf("%s: %w", j.FailedReason, ErrJobLost)); err != nil {
			return err
		}
	}
	return nil
}

// deleteOldRows applies the retention periods and returns the job rows it
// deleted.
func (c *Core) deleteOldRows(ctx context.Context, tx store.Tx, now time.Time) (jobs int, err error) {
	jobs, err = tx.DeleteOldJobs(ctx, c.cfg.JobRetention, c.cfg.CleanupBatch)
	if err != nil {
		return 0, fmt.Errorf("delete jobs older than %v: %w", c.cfg.JobRetention, err)
	}
	if jobs > 0 {
		e := c.note(EventJobsDeleted, c.id, now)
		e.Count = jobs
	}
	workers, err := tx.DeleteOldWorkers(ctx, c.cfg.WorkerRetention)
	if err != nil {
		return 0, fmt.Errorf("delete workers shut down before %v: %w", c.cfg.WorkerRetention, err)
	}
	if workers > 0 {
		e := c.note(EventWorkersDeleted, c.id, now)
		e.Count = workers
	}
	return jobs, nil
}
