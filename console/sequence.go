package console

import (
	"context"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/redact"
	"github.com/tickwork/tickwork/store"
)

// SequenceView is what the job page says of the job's sequence
// (worker.SequenceKey): its place, whether the job halts it (it failed
// for good: retry or skip it to release the sequence), and, for a job
// that waits for its sequence, the job that holds it up first, and
// whether and why that one halts it.
type SequenceView struct {
	Key       string `json:"key"`
	Pos       int64  `json:"pos"`
	Continues bool   `json:"continues,omitempty"`
	Skipped   bool   `json:"skipped,omitempty"`
	Halts     bool   `json:"halts,omitempty"`
	// WaitsFor is the job the sequence waits for before this one (zero:
	// none), in HeadStatus; HeadHalts says it failed for good, with
	// HeadReason.
	WaitsFor   ulid.ULID    `json:"waits_for,omitzero"`
	HeadStatus store.Status `json:"head_status,omitempty"`
	HeadHalts  bool         `json:"head_halts,omitempty"`
	HeadReason string       `json:"head_reason,omitempty"`
}

// sequenceView reads what SequenceView says of job j, nil when j has no
// sequence. Only a job that waits for its sequence costs a read: the
// sequence's head.
func sequenceView(ctx context.Context, st store.Tx, j store.Job) (*SequenceView, error) {
	if j.Sequence.Key == "" {
		return nil, nil
	}
	v := &SequenceView{Key: j.Sequence.Key, Pos: j.Sequence.Pos, Continues: j.Sequence.Continues,
		Skipped: j.Sequence.Skipped, Halts: j.Halts()}
	head, waits, err := store.SequenceWait(ctx, st, j)
	if err != nil {
		return nil, err
	}
	if !waits {
		return v, nil
	}
	v.WaitsFor, v.HeadStatus, v.HeadHalts = head.ID, head.Status, head.Halts()
	if v.HeadHalts {
		v.HeadReason = redact.Text(head.FailedReason)
	}
	return v, nil
}
