package console

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// JobDetail is one job with every attempt of its chain, oldest first.
type JobDetail struct {
	Now      time.Time `json:"now"`
	Job      Attempt   `json:"job"`
	Payload  string    `json:"payload"`  // pretty-printed, credentials hidden
	Metadata string    `json:"metadata"` // likewise
	Attempts []Attempt `json:"attempts"`
	// CanRetry and CanCancel say which actions apply to the job's status.
	CanRetry  bool `json:"can_retry"`
	CanCancel bool `json:"can_cancel"`
}

// Attempt is one row of a chain: who ran it, when, and how it ended, with
// the output its handler recorded (pretty-printed, credentials hidden).
type Attempt struct {
	ID           ulid.ULID    `json:"id"`
	Queue        string       `json:"queue"`
	Attempt      int          `json:"attempt"`
	Status       store.Status `json:"status"`
	CreatedAt    time.Time    `json:"created_at"`
	ScheduledAt  time.Time    `json:"scheduled_at"`
	StartedAt    time.Time    `json:"started_at,omitzero"`
	StartedBy    ulid.ULID    `json:"started_by,omitzero"`
	EndedAt      time.Time    `json:"ended_at,omitzero"`
	Reason       string       `json:"reason,omitempty"`
	NextAttempt  ulid.ULID    `json:"next_attempt_id,omitzero"`
	ScheduleName string       `json:"schedule,omitempty"`
	Output       string       `json:"output,omitempty"`
	Snoozes      int          `json:"snoozes,omitempty"`      // the job's snoozes before this row
	MaxAttempts  int          `json:"max_attempts,omitempty"` // the job's own bound, 0 for none
}

func attemptOf(j store.Job) Attempt {
	a := Attempt{ID: j.ID, Queue: j.Queue, Attempt: j.Attempt, Status: j.Status, CreatedAt: j.CreatedAt,
		ScheduledAt: j.ScheduledAt, StartedAt: j.StartedAt, StartedBy: j.StartedBy,
		Reason: redactText(j.FailedReason), NextAttempt: j.NextAttemptID, ScheduleName: j.ScheduleName,
		Snoozes: j.Snoozes, MaxAttempts: j.MaxAttempts}
	if j.Output != nil {
		a.Output = prettyJSON(j.Output)
	}
	for _, t := range []time.Time{j.CompletedAt, j.FailedAt, j.CancelledAt} {
		if !t.IsZero() {
			a.EndedAt = t
		}
	}
	return a
}

// explainSnoozes gives each snoozed row of the chain the reason it has
// none of: how long it snoozed, until the row after it was due.
func (d *JobDetail) explainSnoozes() {
	for i, a := range d.Attempts {
		if a.Status != store.Snoozed || i+1 == len(d.Attempts) || d.Attempts[i+1].ID != a.NextAttempt {
			continue
		}
		d.Attempts[i].Reason = "snoozed for " + d.Attempts[i+1].ScheduledAt.Sub(a.EndedAt).String()
		if a.ID == d.Job.ID {
			d.Job.Reason = d.Attempts[i].Reason
		}
	}
}

// errNoJob is a job id that names no row.
var errNoJob = errors.New("no such job")

func (s *Server) jobDetail(ctx context.Context, id ulid.ULID) (*JobDetail, error) {
	d := &JobDetail{}
	err := s.readTx(ctx, func(db pgx.Tx, st store.Tx) error {
		var err error
		if d.Now, err = st.Now(ctx); err != nil {
			return err
		}
		ids, err := s.chain(ctx, db, id)
		if err != nil {
			return err
		}
		for _, cid := range ids {
			j, err := st.GetJob(ctx, cid)
			if err != nil {
				return err
			}
			if cid == id {
				d.Job, d.Payload, d.Metadata = attemptOf(j), prettyJSON(j.Payload), prettyJSON(j.Metadata)
				d.CanRetry = (j.Status == store.Failed || j.Status == store.Lost) && j.NextAttemptID.IsZero()
				d.CanCancel = !j.Status.Terminal()
			}
			d.Attempts = append(d.Attempts, attemptOf(j))
		}
		d.explainSnoozes()
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("job %s: %w", id, errNoJob)
	}
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	return d, nil
}

// chain returns the ids of id's attempts, oldest first: back through the
// rows whose next attempt it is, then forward through next_attempt_id
// (both through indexes). No row for id is errNoJob.
func (s *Server) chain(ctx context.Context, db pgx.Tx, id ulid.ULID) ([]ulid.ULID, error) {
	rows, err := db.Query(ctx, s.sql(`
		WITH RECURSIVE back(id, depth) AS (
			SELECT id, 0 FROM {jobs} WHERE id = $1
			UNION ALL SELECT j.id, b.depth - 1 FROM {jobs} j JOIN back b ON j.next_attempt_id = b.id),
		fwd(id, next, depth) AS (
			SELECT id, next_attempt_id, 0 FROM {jobs} WHERE id = $1
			UNION ALL SELECT j.id, j.next_attempt_id, f.depth + 1 FROM {jobs} j JOIN fwd f ON j.id = f.next)
		SELECT id FROM (SELECT id, depth FROM back UNION SELECT id, depth FROM fwd) c ORDER BY depth`), uuid(id))
	if err != nil {
		return nil, fmt.Errorf("follow the attempts of job %s: %w", id, err)
	}
	raw, err := pgx.CollectRows(rows, pgx.RowTo[pgtype.UUID])
	if err != nil {
		return nil, fmt.Errorf("follow the attempts of job %s: %w", id, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("job %s: %w", id, errNoJob)
	}
	ids := make([]ulid.ULID, len(raw))
	for i, u := range raw {
		ids[i] = u.Bytes
	}
	return ids, nil
}
