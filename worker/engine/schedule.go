package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// fireSchedules enqueues the next run of every schedule that is due and
// whose previous run has ended, so runs never overlap and missed cron times
// are skipped rather than made up.
func (c *Core) fireSchedules(ctx context.Context, tx store.Tx, now time.Time) error {
	if len(c.schedules) == 0 {
		return nil
	}
	rows, err := tx.ListSchedules(ctx)
	if err != nil {
		return fmt.Errorf("list schedules: %w", err)
	}
	byName := make(map[string]store.Schedule, len(rows))
	for _, r := range rows {
		byName[r.Name] = r
	}
	for _, s := range c.schedules {
		row, ok := byName[s.Name]
		if !ok {
			return fmt.Errorf("schedule %q has no row: %w", s.Name, store.ErrNotFound)
		}
		if row.LastScheduledAt.After(now) {
			continue
		}
		running, err := c.lastRunActive(ctx, tx, row.LastScheduledJobID, now)
		if err != nil {
			return fmt.Errorf("schedule %q: %w", s.Name, err)
		}
		if running {
			continue
		}
		if err := c.fire(ctx, tx, now, s, row); err != nil {
			return err
		}
		if mutant.On(mutant.SchedulesOneAPass) {
			return nil
		}
	}
	return nil
}

// lastRunActive reports whether the schedule's last job, following its
// chain of retries and snoozes, has not reached a terminal status, or
// reached it after now. ScheduleRetry and SnoozeJob already move the
// pointer to each new row; following next_attempt_id as well keeps a run
// from overlapping even if a pointer lagged behind. Under the database's
// clock a transaction's now is its start: one that began before the last
// row's end committed may still read it ended, and a run created at that
// now would begin, in store time, before the previous one ended. It waits
// for the next pass instead.
func (c *Core) lastRunActive(ctx context.Context, tx store.Tx, id ulid.ULID, now time.Time) (bool, error) {
	longest := max(c.cfg.MaxRetries+1, store.MaxJobAttempts) + c.cfg.MaxSnoozes
	for hops := 0; !id.IsZero(); hops++ {
		if hops > longest {
			return false, fmt.Errorf("the chain of retries and snoozes from job %s is longer than any job's (%d rows)", id, longest)
		}
		job, err := tx.GetJob(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil // deleted by retention: long over
		}
		if err != nil {
			return false, fmt.Errorf("get last scheduled job %s: %w", id, err)
		}
		if !job.Status.Terminal() || (job.NextAttemptID.IsZero() && endedAt(job).After(now)) {
			return true, nil
		}
		id = job.NextAttemptID
	}
	return false, nil
}

// fire enqueues the run at the next cron time after the store's now. When
// another row holds the schedule's unique key, nothing is enqueued: the
// schedule is advanced past that cron time, still pointing at its last run.
func (c *Core) fire(ctx context.Context, tx store.Tx, now time.Time, s ScheduleSpec, row store.Schedule) error {
	at, ok := c.crons[s.Name].next(now)
	if !ok {
		c.noNextTime(s, now)
		return nil
	}
	delete(c.noNext, s.Name)
	job := store.NewJob{ID: clockrng.NewULID(now, c.idRand), Queue: s.Queue, Payload: s.Payload, ScheduledAt: at, ScheduleName: s.Name,
		UniqueKey: s.UniqueKey}
	if mutant.On(mutant.ScheduleKeyDropped) {
		job.UniqueKey = ""
	}
	dups, err := tx.InsertJobs(ctx, []store.NewJob{job})
	if err != nil {
		return fmt.Errorf("schedule %q: enqueue run at %v: %w", s.Name, at, err)
	}
	if len(dups) > 0 {
		if err := tx.AdvanceSchedule(ctx, s.Name, at, row.LastScheduledJobID); err != nil {
			return fmt.Errorf("schedule %q: skip the run at %v: %w", s.Name, at, err)
		}
		e := c.note(EventScheduleSkipped, c.id, now)
		e.Schedule, e.CronTime, e.Job = s.Name, at, dups[0].Existing
		return nil
	}
	if err := tx.AdvanceSchedule(ctx, s.Name, at, job.ID); err != nil {
		return fmt.Errorf("schedule %q: advance to %v: %w", s.Name, at, err)
	}
	e := c.note(EventScheduleFired, c.id, now)
	e.Schedule, e.CronTime = s.Name, at
	e.Job = store.Job{ID: job.ID, Queue: s.Queue, Payload: s.Payload, Status: store.Scheduled, CreatedAt: now, ScheduledAt: at, ScheduleName: s.Name}
	return nil
}

// noNextTime reports, once until it has a time again, a schedule that has
// no cron time within ScheduleHorizon of the store's now: Validate refuses
// such expressions, but one can still get here (29 February alone, from
// March 2096). Nothing is enqueued for it, and each leader pass asks again.
func (c *Core) noNextTime(s ScheduleSpec, now time.Time) {
	if c.noNext[s.Name] {
		return
	}
	c.noNext[s.Name] = true
	reason := fmt.Sprintf("cron expression %q has no time within %d years of %s: no run enqueued", s.Cron,
		ScheduleHorizon/(365*24*time.Hour), now.UTC().Format(time.RFC3339))
	e := c.event(EventScheduleNoNextTime, c.id)
	e.StoreTime, e.Schedule, e.Reason = now, s.Name, reason
	c.emit(e)
}

// endedAt is when a terminal row ended.
func endedAt(j store.Job) time.Time {
	for _, t := range []time.Time{j.CompletedAt, j.FailedAt, j.CancelledAt} {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}
