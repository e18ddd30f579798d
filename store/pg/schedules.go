package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// EnsureSchedules validates every name first (1 to store.MaxQueueNameBytes
// bytes, else ErrInvalid and nothing inserted), then inserts the missing
// ones.
func (t *tx) EnsureSchedules(ctx context.Context, names []string) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := rules.ValidateScheduleNames(names); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	_, err := t.db.Exec(ctx, t.s.sql(`
		INSERT INTO {schema}.schedules (name)
		SELECT name FROM unnest($1::text[]) AS name ORDER BY name
		ON CONFLICT (name) DO NOTHING`), names)
	if err != nil {
		return t.fail(err, "ensure schedules %q", names)
	}
	return nil
}

func (t *tx) ListSchedules(ctx context.Context) ([]store.Schedule, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(`
		SELECT name, last_scheduled_at, last_scheduled_job_id FROM {schema}.schedules ORDER BY name`))
	if err != nil {
		return nil, t.fail(err, "list schedules")
	}
	schedules, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Schedule, error) {
		var sc store.Schedule
		var at pgtype.Timestamptz
		var job pgtype.UUID
		err := r.Scan(&sc.Name, &at, &job)
		sc.LastScheduledAt, sc.LastScheduledJobID = toTime(at), toULID(job)
		return sc, err
	})
	if err != nil {
		return nil, t.fail(err, "list schedules")
	}
	return schedules, nil
}

// AdvanceSchedule checks that job exists before pointing the schedule at it
// (the zero ULID stores NULL), so that an unknown job is ErrNotFound rather
// than a foreign key violation that would abort the transaction.
func (t *tx) AdvanceSchedule(ctx context.Context, name string, at time.Time, job ulid.ULID) error {
	if err := t.check(); err != nil {
		return err
	}
	var found, jobFound bool
	err := t.db.QueryRow(ctx, t.s.sql(checkAdvanceSQL), name, refArg(job)).Scan(&found, &jobFound)
	switch {
	case err != nil:
		return t.fail(err, "advance schedule %q", name)
	case !found:
		return fmt.Errorf("advance schedule %q: %w", name, store.ErrNotFound)
	case !jobFound:
		return fmt.Errorf("advance schedule %q to job %s: no such job: %w", name, job, store.ErrNotFound)
	}
	_, err = t.db.Exec(ctx, t.s.sql(`
		UPDATE {schema}.schedules SET last_scheduled_at = $2, last_scheduled_job_id = $3 WHERE name = $1`),
		name, timeArg(at), refArg(job))
	if err != nil {
		return t.fail(err, "advance schedule %q to job %s", name, job)
	}
	return nil
}

// checkAdvanceSQL reads whether schedule $1 and job $2 (NULL: none) exist.
const checkAdvanceSQL = `
	SELECT EXISTS (SELECT 1 FROM {schema}.schedules WHERE name = $1),
	       $2::uuid IS NULL OR EXISTS (SELECT 1 FROM {schema}.jobs WHERE id = $2::uuid)`
