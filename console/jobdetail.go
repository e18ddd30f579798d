package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
)

// JobDetail is one job with every attempt of its chain, oldest first.
// Payload, metadata and output are pretty-printed with credentials hidden
// and shown up to maxShownJSON bytes (an attempt's output in the chain up
// to maxCellJSON); a document cut short is flagged, and
// /api/jobs/ID/payload (metadata, output) serves it whole.
type JobDetail struct {
	Now         time.Time `json:"now"`
	Job         Attempt   `json:"job"`
	Payload     string    `json:"payload"`
	PayloadCut  bool      `json:"payload_cut,omitempty"`
	Metadata    string    `json:"metadata"`
	MetadataCut bool      `json:"metadata_cut,omitempty"`
	Attempts    []Attempt `json:"attempts"`
	// CanRetry, CanCancel and CanDelete say which actions apply to the
	// job's status (a delete may still be refused: store.Tx.DeleteJob).
	CanRetry  bool `json:"can_retry"`
	CanCancel bool `json:"can_cancel"`
	CanDelete bool `json:"can_delete"`
	// Sequence is the job's sequence, nil for none; CanSkip says the job
	// halts it and a skip would release it (sequence.go).
	Sequence *SequenceView `json:"sequence,omitempty"`
	CanSkip  bool          `json:"can_skip,omitempty"`
	// WaitsFor lists the parents a waiting job still waits for;
	// RunsAnyway, that a parent failing or cancelled will not cancel it.
	WaitsFor   []Parent `json:"waits_for,omitempty"`
	RunsAnyway bool     `json:"runs_anyway,omitempty"`
	// Batch is the batch the job is a member or the callback of, nil for
	// none (batch.go).
	Batch *BatchView `json:"batch,omitempty"`
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
	OutputCut    bool         `json:"output_cut,omitempty"`
	Snoozes      int          `json:"snoozes,omitempty"`      // the job's snoozes before this row
	MaxAttempts  int          `json:"max_attempts,omitempty"` // the job's own bound, 0 for none
	// DeadFrom is the queue the row failed in when it was dead-lettered
	// into Queue; "" for none.
	DeadFrom string `json:"dead_from,omitempty"`
}

// attemptOf is row j with its output shown up to limit bytes.
func attemptOf(j store.Job, limit int) Attempt {
	a := Attempt{ID: j.ID, Queue: j.Queue, Attempt: j.Attempt, Status: j.Status, CreatedAt: j.CreatedAt,
		ScheduledAt: j.ScheduledAt, StartedAt: j.StartedAt, StartedBy: j.StartedBy,
		Reason: redact.Text(j.FailedReason), NextAttempt: j.NextAttemptID, ScheduleName: j.ScheduleName,
		Snoozes: j.Snoozes, MaxAttempts: j.MaxAttempts, DeadFrom: j.DeadFrom}
	if j.Output != nil {
		a.Output, a.OutputCut = redact.Pretty(j.Output, limit)
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
				d.Job = attemptOf(j, maxShownJSON)
				d.Payload, d.PayloadCut = redact.Pretty(j.Payload, maxShownJSON)
				d.Metadata, d.MetadataCut = redact.Pretty(j.Metadata, maxShownJSON)
				d.CanRetry = (j.Status == store.Failed || j.Status == store.Lost) && j.NextAttemptID.IsZero()
				d.CanCancel = !j.Status.Terminal()
				d.CanDelete = j.Status.Terminal()
				d.CanSkip = j.Halts()
				if d.Sequence, err = sequenceView(ctx, st, j); err != nil {
					return err
				}
				d.RunsAnyway = j.RunAnyway
				if d.WaitsFor, err = waitsFor(ctx, st, j); err != nil {
					return err
				}
				if d.Batch, err = batchView(ctx, st, j); err != nil {
					return err
				}
			}
			d.Attempts = append(d.Attempts, attemptOf(j, maxCellJSON))
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

// jobDocument serves /api/jobs/ID/payload, metadata or output: the whole
// document, compact, with credentials hidden, for what the job's page cut
// short.
func (s *Server) jobDocument(w http.ResponseWriter, r *http.Request) {
	column, ok := map[string]string{"payload": "payload", "metadata": "metadata", "output": "output"}[r.PathValue("doc")]
	if !ok {
		s.failJSON(w, r, &httpError{http.StatusNotFound, fmt.Errorf("%q is not a job document: want payload, metadata or output", r.PathValue("doc"))})
		return
	}
	id, err := pathID(r)
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	var doc []byte
	err = s.readTx(r.Context(), func(db pgx.Tx, _ store.Tx) error {
		err := db.QueryRow(r.Context(), s.sql(`SELECT `+column+`::text FROM {jobs} WHERE id = $1`), uuid(id)).Scan(&doc)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("job %s: %w", id, errNoJob)
		}
		return err
	})
	if err != nil {
		s.failJSON(w, r, err)
		return
	}
	if doc == nil {
		doc = []byte("null")
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(redact.Compact(doc)) // the client went away; nothing to tell it
}
