package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// Sequence places a job in the sequence of its key: the jobs with one
// sequence key run one at a time, across every queue and worker, in the
// order they were enqueued, through retries, snoozes and rescues.
//
// A job of a sequence is open while it may still run or holds the
// sequence up: its row is the last of its attempts (no NextAttemptID) and
// it is scheduled, available or running, or it failed or was lost for
// good, unless it continues on failure or an operator skipped it
// (SkipJob). Reserve takes a job of a sequence only when it is the open
// job of its key earliest in enqueue order and no job of the key runs.
// A job that failed for good therefore halts its sequence until an
// operator retries it (ScheduleRetry, which keeps its place) or skips it.
// DeleteOldJobs keeps such a job.
type Sequence struct {
	// Key names the sequence, "" for none: at most MaxSequenceKeyBytes.
	Key string `json:"key"`
	// Pos is the job's place in enqueue order within its key: each
	// insert gives its jobs of a key, in batch order, the places after
	// the last of the key's rows (counting those a unique key skipped).
	// Retries and snoozes keep it.
	Pos int64 `json:"pos"`
	// Continues: a failure for good does not halt the sequence.
	Continues bool `json:"continues,omitempty"`
	// Skipped: an operator released the sequence from this failed job.
	Skipped bool `json:"skipped,omitempty"`
}

// MaxSequenceKeyBytes is the longest sequence key a job may carry.
const MaxSequenceKeyBytes = 200

// String formats a sequence as FormatJob shows it.
func (s Sequence) String() string {
	return fmt.Sprintf("seq=%q/%d continues=%t skipped=%t", s.Key, s.Pos, s.Continues, s.Skipped)
}

// HoldsSequence reports whether j is open in its sequence (see Sequence):
// no later job of its key may start while it is.
func (j Job) HoldsSequence() bool {
	if j.Sequence.Key == "" || j.NextAttemptID != (ulid.ULID{}) {
		return false
	}
	switch j.Status {
	case Scheduled, Available, Running:
		return true
	case Failed, Lost:
		return !j.Sequence.Continues && !j.Sequence.Skipped
	}
	return false
}

// Halts reports whether j halts its sequence: it failed or was lost for
// good and waits for an operator (SkipJob or ScheduleRetry).
func (j Job) Halts() bool { return j.HoldsSequence() && (j.Status == Failed || j.Status == Lost) }

// checkSequence refuses a sequence key that PostgreSQL's text could not
// hold (as checkPartitionKey), a job with both keys, and continuing on
// failure without a sequence.
func checkSequence(j NewJob) error {
	key := j.SequenceKey
	switch {
	case len(key) > MaxSequenceKeyBytes:
		return fmt.Errorf("sequence key is %d bytes, more than the %d allowed: %w", len(key), MaxSequenceKeyBytes, ErrInvalid)
	case !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("sequence key %q is not valid UTF-8 without NUL: %w", key, ErrInvalid)
	case key != "" && j.PartitionKey != "":
		return fmt.Errorf("sequence key %q with partition key %q: a job takes one or the other: %w", key, j.PartitionKey, ErrInvalid)
	case key == "" && j.SequenceContinues:
		return fmt.Errorf("continue on failure without a sequence key: %w", ErrInvalid)
	}
	return nil
}

// SequenceWait returns the job that holds j's sequence up before j, and
// whether there is one: the sequence's head, for a job that waits for its
// sequence (it holds it, runs not and halts not) and is not the head.
func SequenceWait(ctx context.Context, tx Tx, j Job) (Job, bool, error) {
	if !j.HoldsSequence() || j.Status == Running || j.Halts() {
		return Job{}, false, nil
	}
	head, err := tx.SequenceHead(ctx, j.Sequence.Key)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && head.ID == j.ID:
		return Job{}, false, nil
	case err != nil:
		return Job{}, false, err
	}
	return head, true, nil
}
