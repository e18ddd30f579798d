package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/props"
)

// readJobs returns every jobs row of the run, in id order, as the checker
// reads rows.
func (d *driverDB) readJobs(ctx context.Context) ([]props.JobRow, error) {
	rows, err := d.pool.Query(ctx, `
		SELECT id, queue, status, attempt, created_at, scheduled_at, started_at, started_by,
		       completed_at, failed_at, coalesce(failed_reason, ''), cancelled_at, next_attempt_id,
		       coalesce(schedule_name, '')
		FROM `+d.table("jobs")+` ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read the jobs: %w", err)
	}
	var out []props.JobRow
	var id [16]byte
	var startedBy, next *[16]byte
	var started, completed, failed, cancelled *time.Time
	var status string
	var j props.JobRow
	_, err = pgx.ForEachRow(rows, []any{&id, &j.Queue, &status, &j.Attempt, &j.CreatedAt, &j.ScheduledAt,
		&started, &startedBy, &completed, &failed, &j.FailedReason, &cancelled, &next, &j.ScheduleName}, func() error {
		r := j
		r.ID, r.StartedBy, r.NextAttemptID = ulid.ULID(id), nullID(startedBy), nullID(next)
		r.Status = props.Status(status)
		r.CreatedAt, r.ScheduledAt = r.CreatedAt.UTC(), r.ScheduledAt.UTC()
		r.StartedAt, r.CompletedAt, r.FailedAt, r.CancelledAt = nullTime(started), nullTime(completed), nullTime(failed), nullTime(cancelled)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the jobs: %w", err)
	}
	return out, nil
}

// readWorkers returns every workers row, in id order.
func (d *driverDB) readWorkers(ctx context.Context) ([]props.WorkerRow, error) {
	rows, err := d.pool.Query(ctx, `SELECT id, registered_at, last_seen_at, shutdown_at FROM `+d.table("workers")+` ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read the workers: %w", err)
	}
	var out []props.WorkerRow
	var id [16]byte
	var shutdown *time.Time
	var w props.WorkerRow
	_, err = pgx.ForEachRow(rows, []any{&id, &w.RegisteredAt, &w.LastSeenAt, &shutdown}, func() error {
		r := w
		r.ID, r.ShutdownAt = ulid.ULID(id), nullTime(shutdown)
		r.RegisteredAt, r.LastSeenAt = r.RegisteredAt.UTC(), r.LastSeenAt.UTC()
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the workers: %w", err)
	}
	return out, nil
}

// nullID is the id a nullable uuid column holds; NULL is the zero id.
func nullID(b *[16]byte) ulid.ULID {
	if b == nil {
		return ulid.ULID{}
	}
	return ulid.ULID(*b)
}

// nullTime is a nullable timestamptz in UTC; NULL is the zero time.
func nullTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
